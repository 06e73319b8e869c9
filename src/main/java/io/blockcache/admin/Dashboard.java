package io.blockcache.admin;

import io.blockcache.json.JsonWriter;

/**
 * The dashboard page of {@code GET /}: one static HTML page whose script polls {@code /api/stats} every second,
 * keeps the last {@code HISTORY} samples in the browser, and draws line charts on {@code <canvas>} (no library,
 * so nothing external to load) per volume, each with a y axis in its unit, an x axis in seconds and a legend:
 * requests per second, read and write throughput, dirty data (with the time to clean at the current writeback
 * rate), writeback rate (measured from written-back sectors, and the PI rate), backing queue depth, read hit
 * ratio over each interval, and front-end latency; then tables of the numbers, writeback and GC included.
 * Each chart counts its draws in {@code data-draws} and the page its polls in {@code body[data-polls]}, so a
 * browser test can wait for an update instead of sleeping ({@code DashboardBrowserTest}).
 *
 * <p>The script reads each metric by its Prometheus name through a table generated from {@link Metrics#ALL} (the
 * metric's key in its {@code /api/stats} object and the factor to its base unit), so the page spells no metric's
 * JSON key and converts no sectors itself; a name the catalogue lacks stops the poll with an error on the page.
 *
 * <p>With an admin token ({@link AdminGuard}) the operator opens {@code http://HOST:PORT/#token=TOKEN}: the
 * fragment never leaves the browser (no request line, no server or proxy log holds it), the script keeps the token
 * in the tab's {@code sessionStorage}, clears it from the address bar and sends it as {@code Authorization: Bearer}.
 */
final class Dashboard {
    private Dashboard() {
    }

    /** The page; self-contained, no external resources (the admin API is often reached through a tunnel). */
    static final String HTML = page();

    /** Where the generated metric table goes in {@link #PAGE}. */
    private static final String METRICS_MARK = "/*METRICS*/";

    private static String page() {
        JsonWriter json = new JsonWriter().beginObject();
        for (MetricDescriptor<?> metric : Metrics.ALL) {
            json.name(metric.name()).beginObject().name("p").beginObject();
            for (MetricDescriptor.Series<?> series : metric.series()) {
                json.field(series.labelValue() == null ? "" : series.labelValue(), series.jsonPath());
            }
            json.endObject().field("f", metric.jsonUnit().convert(1, metric.seriesUnit().base())).endObject();
        }
        return PAGE.replace(METRICS_MARK, json.endObject().toString());
    }

    private static final String PAGE = """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>blockcache</title><link rel="icon" href="data:,">
            <style>
            body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
            table{border-collapse:collapse;margin-bottom:1.5em}
            td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
            th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
            .charts{display:flex;flex-wrap:wrap;gap:.8em;margin-bottom:1em}
            canvas{border:1px solid #ddd;background:#fcfcfc}
            #err{color:#b00}
            </style></head>
            <body><h1>blockcache</h1><p id="err"></p><p id="recovery"></p>
            <div id="live"></div>
            <h2>Volumes</h2><table id="volumes"></table>
            <h2>Writeback</h2><table id="writeback"></table>
            <h2>Drain jobs</h2><table id="drains"></table>
            <h2>Cache</h2><table id="cache"></table>
            <h2>Garbage collection</h2><table id="gc"></table>
            <h2>Backing devices</h2><table id="backing"></table>
            <p>Raw: <a href="/api/stats">/api/stats</a> &middot; <a href="/metrics">/metrics</a>
             &middot; <a href="/api/knobs">/api/knobs</a></p>
            <script>
            const HISTORY=120, W=340, H=150, hist={}, prev={};
            const PAD={left:56,right:8,top:30,bottom:18};
            // Every metric by its /metrics name: p, its key in its /api/stats object per label value ('' if it has
            // no label); f, the factor from that key's unit to the base unit (sectors to bytes: 512).
            const M=/*METRICS*/;
            function raw(o,name,label){const d=M[name];if(!d)throw new Error('no metric '+name);let x=o;
              for(const k of d.p[label||''].split('.')){x=x==null?null:x[k]}return x}
            function base(o,name,label){const x=raw(o,name,label);return x==null?null:x*M[name].f}
            // The admin token: from #token=... (kept for this tab only, then cleared from the address bar), sent as
            // a header. A fragment is never sent to the server, so no log ever holds it.
            const TOKEN=(()=>{const m=/(?:^#|&)token=([^&]*)/.exec(location.hash);let t=m?decodeURIComponent(m[1]):null;
              try{if(t){sessionStorage.setItem('blockcache-token',t)}else{t=sessionStorage.getItem('blockcache-token')}}
              catch(e){}
              if(m){history.replaceState(null,'',location.pathname+location.search)}
              return t})();
            function api(path){return fetch(path,TOKEN?{headers:{Authorization:'Bearer '+TOKEN}}:{})}
            // Readable sizes: binary units, three significant digits at most.
            function size(b){if(b==null)return '-';const u=['B','KiB','MiB','GiB','TiB'];let i=0;b=Number(b);
              while(Math.abs(b)>=1024&&i<u.length-1){b/=1024;i++}
              return (i==0?b.toFixed(0):b.toFixed(b<10?2:b<100?1:0))+' '+u[i]}
            function mib(b){return size(b)}
            function rate(b){return b==null?'-':size(b)+'/s'}
            function count(x){if(x==null)return '-';x=Number(x);
              return x>=1e6?(x/1e6).toFixed(2)+' M':x>=1e4?(x/1e3).toFixed(1)+' k':x.toFixed(x<10&&x%1?1:0)}
            function num(x,d){return x==null?'-':Number(x).toFixed(d||0)}
            function table(id,head,rows){
              const t=document.getElementById(id);t.textContent='';
              const h=t.insertRow();
              head.forEach(x=>{const c=document.createElement('th');c.textContent=x;h.appendChild(c)});
              rows.forEach(r=>{const row=t.insertRow();r.forEach(x=>{row.insertCell().textContent=x})});
            }
            function drain(d){
              return d.id?'#'+d.id+' '+d.state+(d.state=='running'?', '+mib(d.dirtyBytesLeft)+' left':''):'-'}
            function dur(ms){if(ms==null||ms<0)return 'unknown';const s=Math.ceil(ms/1000);
              const two=x=>String(x).padStart(2,'0');
              return Math.floor(s/3600)+':'+two(Math.floor(s/60)%60)+':'+two(s%60)}
            function bar(d){const t=d.writtenBackBytes+d.dirtyBytesLeft,f=t>0?d.writtenBackBytes/t:1;
              return '#'.repeat(Math.floor(f*20))+'-'.repeat(20-Math.floor(f*20))+' '+Math.floor(f*100)+' %'}
            function push(key,v){const a=hist[key]||(hist[key]=[]);a.push(v);if(a.length>HISTORY)a.shift();return a}
            function canvasFor(volume,name){
              const id='c-'+volume+'-'+name;let c=document.getElementById(id);
              if(!c){
                let box=document.getElementById('v-'+volume);
                if(!box){box=document.createElement('div');box.id='v-'+volume;
                  const h=document.createElement('h2');h.textContent='Volume '+volume+' (live, last '+HISTORY+' s)';
                  const d=document.createElement('div');d.className='charts';box.append(h,d);
                  document.getElementById('live').appendChild(box)}
                c=document.createElement('canvas');c.id=id;c.width=W;c.height=H;c.className='chart';
                box.lastChild.appendChild(c)}
              return c}
            // A line chart with a y axis (0, half, max in the chart's unit), an x axis in seconds before now,
            // and a legend with each series' latest value. series: [[label, color, values]]; fmt: value -> text.
            function chart(canvas,title,series,fmt){
              const g=canvas.getContext('2d');g.clearRect(0,0,W,H);
              let max=0;series.forEach(s=>s[2].forEach(v=>{if(v!=null&&v>max)max=v}));if(max<=0)max=1;
              const top=PAD.top,bottom=H-PAD.bottom,left=PAD.left,right=W-PAD.right;
              g.font='11px system-ui,sans-serif';g.fillStyle='#222';g.textAlign='left';g.fillText(title,4,11);
              g.strokeStyle='#e4e4e4';g.fillStyle='#666';g.textAlign='right';g.beginPath();
              [0,0.5,1].forEach(f=>{const y=bottom-(bottom-top)*f;g.moveTo(left,y);g.lineTo(right,y);
                g.fillText(fmt(max*f),left-4,y+4)});
              g.stroke();g.strokeStyle='#888';g.beginPath();g.moveTo(left,top);g.lineTo(left,bottom);
              g.lineTo(right,bottom);g.stroke();
              g.textAlign='center';
              [[HISTORY-1,'-'+(HISTORY-1)+' s'],[(HISTORY-1)/2,'-'+Math.round((HISTORY-1)/2)+' s'],[0,'now']]
                .forEach(([ago,text])=>{const x=right-ago*(right-left)/(HISTORY-1);
                  g.fillText(text,Math.min(Math.max(x,left+14),right-12),H-4)});
              g.textAlign='left';let x=4;
              series.forEach(([label,color,values])=>{
                g.strokeStyle=color;g.lineWidth=1.5;g.beginPath();let started=false;
                values.forEach((v,i)=>{if(v==null)return;
                  const px=right-(values.length-1-i)*(right-left)/(HISTORY-1),py=bottom-(bottom-top)*v/max;
                  if(started)g.lineTo(px,py);else{g.moveTo(px,py);started=true}});
                g.stroke();g.lineWidth=1;const last=values[values.length-1];
                g.fillStyle=color;const text=label+' '+(last==null?'-':fmt(last));g.fillText(text,x,24);
                x+=g.measureText(text).width+10});
              canvas.dataset.draws=String(Number(canvas.dataset.draws||0)+1);
            }
            function live(s,nowMs){
              const backing={};s.backing.forEach(d=>backing[d.name]=d);
              s.volumes.forEach(v=>{
                const w=v.writeback,p=prev[v.name],k=v.name+'/';
                let wb=null,hit=null,iops=null,rd=null,wr=null;
                const hitBytes=base(v,'blockcache_read_hit_bytes_total');
                const missBytes=base(v,'blockcache_read_miss_bytes_total');
                const written=base(w,'blockcache_writeback_written_bytes_total');
                const readBytes=hitBytes+missBytes;
                const writeBytes=base(v,'blockcache_write_cached_bytes_total')
                  +base(v,'blockcache_bypassed_bytes_total');
                if(p){const dt=(nowMs-p.t)/1000;
                  if(dt>0){wb=Math.max(0,(written-p.written)/dt);
                    iops=Math.max(0,(v.latency.requests-p.requests)/dt);
                    rd=Math.max(0,(readBytes-p.read)/dt);wr=Math.max(0,(writeBytes-p.write)/dt)}
                  const hits=hitBytes-p.hits,reads=hits+missBytes-p.misses;
                  hit=reads>0?100*hits/reads:(hist[k+'hit']||[]).slice(-1)[0]??null}
                prev[v.name]={t:nowMs,written:written,hits:hitBytes,misses:missBytes,
                  requests:v.latency.requests,read:readBytes,write:writeBytes};
                chart(canvasFor(v.name,'iops'),'requests per second',[['IOPS','#2471a3',push(k+'iops',iops)]],count);
                chart(canvasFor(v.name,'throughput'),'front-end throughput',
                  [['read','#1e8449',push(k+'rd',rd)],['write','#c0392b',push(k+'wr',wr)]],rate);
                const dirty=base(v,'blockcache_dirty_bytes');
                const eta=dirty>0&&wb>0?', clean in ~'+dur(1000*dirty/wb):'';
                chart(canvasFor(v.name,'dirty'),'dirty data'+eta,[['dirty','#c0392b',push(k+'dirty',dirty)]],size);
                chart(canvasFor(v.name,'rate'),'writeback rate',
                  [['written back','#2471a3',push(k+'rate',wb)],
                   ['PI rate','#aaa',push(k+'pi',base(w,'blockcache_writeback_rate_bytes_per_second'))]],rate);
                const q=backing[v.name]?raw(backing[v.name],'blockcache_backing_requests_in_flight')
                  :w.backingQueueDepth;
                chart(canvasFor(v.name,'queue'),'backing queue depth (requests)',
                  [['all','#7d3c98',push(k+'queue',q)],
                   ['writeback','#27ae60',push(k+'wbq',raw(w,'blockcache_writeback_backing_writes_in_flight'))]],
                  x=>num(x));
                chart(canvasFor(v.name,'hit'),'read hit ratio per second',[['hit','#1e8449',push(k+'hit',hit)]],
                  x=>num(x,1)+' %');
                chart(canvasFor(v.name,'latency'),'latency since open',
                  [['p50','#2471a3',push(k+'p50',raw(v,'blockcache_request_latency_seconds','0.5'))],
                   ['p99','#d35400',push(k+'p99',raw(v,'blockcache_request_latency_seconds','0.99'))]],
                  x=>num(x)+' µs');
              });
            }
            async function poll(){
              try{
                const answer=await api('/api/stats');
                if(answer.status==401){document.getElementById('err').textContent=(TOKEN?'the admin token is wrong'
                  :'this server needs the admin token')+': open this page as '+location.origin+'/#token=TOKEN';return}
                const s=await answer.json();
                document.getElementById('err').textContent='';
                const rec=document.getElementById('recovery');
                if(s.recovery){const r=s.recovery;
                  rec.textContent='Opening the cache (recovery): '+r.phase+', '+count(r.extentsDone)+' of '
                    +count(r.extentsTotal)+' extents'+(r.unitsTotal>0?' ('+Math.floor(100*r.unitsDone/r.unitsTotal)
                    +' % of this phase)':'')+(r.failure?'; failed: '+r.failure:'');
                  document.body.dataset.polls=String(Number(document.body.dataset.polls||0)+1);return}
                rec.textContent='';
                live(s,Date.now());
                table('volumes',['volume','mode','size','hit ratio','dirty','cached','bypassed sectors',
                    'in flight','p50 µs','p99 µs','p99.9 µs'],
                  s.volumes.map(v=>[v.name,v.mode,mib(base(v,'blockcache_volume_size_bytes')),
                    (100*base(v,'blockcache_hit_ratio')).toFixed(1)+' %',mib(base(v,'blockcache_dirty_bytes')),
                    mib(base(v,'blockcache_cached_bytes')),raw(v,'blockcache_bypassed_bytes_total'),
                    raw(v,'blockcache_requests_in_flight'),num(raw(v,'blockcache_request_latency_seconds','0.5')),
                    num(raw(v,'blockcache_request_latency_seconds','0.99')),
                    num(raw(v,'blockcache_request_latency_seconds','0.999'))]));
                table('writeback',['volume','running','policy/order','front end','written back','passes',
                    'keys in flight','rate sectors/s','target','P','I','change','frag. boost','measured backing',
                    'errors','drain'],
                  s.volumes.map(v=>{const w=v.writeback,d=w.drain;return [v.name,
                    raw(w,'blockcache_writeback_running')?'yes':'paused',w.policy+'/'+w.order,w.state,
                    mib(base(w,'blockcache_writeback_written_bytes_total')),raw(w,'blockcache_writeback_passes_total'),
                    raw(w,'blockcache_writeback_keys_in_flight'),raw(w,'blockcache_writeback_rate_bytes_per_second'),
                    raw(w,'blockcache_writeback_rate_target_bytes'),
                    raw(w,'blockcache_writeback_rate_proportional_bytes_per_second'),
                    raw(w,'blockcache_writeback_rate_integral_bytes_per_second'),
                    raw(w,'blockcache_writeback_rate_change_bytes_per_second'),
                    raw(w,'blockcache_writeback_rate_fragment_boost_bytes_per_second'),
                    mib(base(w,'blockcache_writeback_measured_backing_bytes_per_second'))+'/s',w.errors.total,
                    drain(d)]}));
                table('drains',['volume','job','state','progress','left','written back','rate','ETA','cap',
                    'held to','deadline in','needs','note'],
                  s.volumes.filter(v=>v.writeback.drain.id).map(v=>{const d=v.writeback.drain;return [v.name,
                    '#'+d.id,d.finishing?'finishing':d.state,bar(d),mib(d.dirtyBytesLeft),mib(d.writtenBackBytes),
                    mib(d.bytesPerSecond)+'/s',
                    d.state=='running'?dur(d.etaMs):'-',d.rateMaxBytesPerSecond?mib(d.rateMaxBytesPerSecond)+'/s':'-',
                    d.rateCeilingBytesPerSecond?mib(d.rateCeilingBytesPerSecond)+'/s':'full speed',
                    d.deadlineInMs==null?'-':dur(d.deadlineInMs),
                    d.neededBytesPerSecond?mib(d.neededBytesPerSecond)+'/s':'-',
                    (d.restored?'taken up after a restart. ':'')+(d.deadlineWarning||d.error||'')]}));
                const c=s.cache,cb=x=>raw(c,'blockcache_buckets',x);
                table('cache',['occupancy','free','open','sealed','journal','metadata','journal seq','checkpoints'],
                  [[(100*base(c,'blockcache_cache_occupancy_ratio')).toFixed(1)+' %',cb('free'),cb('open'),
                    cb('sealed'),cb('journal'),cb('metadata'),raw(c,'blockcache_journal_durable_sequence'),
                    raw(c,'blockcache_checkpoints_written_total')]]);
                const g=s.gc,gb=x=>raw(g,'blockcache_gc_buckets',x),since=base(g,'blockcache_gc_since_last_seconds');
                table('gc',['state','runs','avg ms','max ms','interval ms','since last','clean','dirty','evicted',
                    'moved','allocation waits'],
                  [[raw(g,'blockcache_gc_running')?'running':'idle',raw(g,'blockcache_gc_runs_total'),
                    num(raw(g,'blockcache_gc_duration_average_seconds'),1),
                    num(raw(g,'blockcache_gc_duration_max_seconds'),1),
                    num(raw(g,'blockcache_gc_interval_average_seconds')),
                    since==null?'never':since.toFixed(1)+' s',gb('clean'),gb('dirty'),
                    raw(g,'blockcache_gc_evictions_total'),mib(base(g,'blockcache_gc_moved_bytes_total')),
                    raw(g,'blockcache_gc_allocation_waits_total')]]);
                table('backing',['device','queue depth','read sectors','written sectors','errors'],
                  s.backing.map(d=>[d.name,raw(d,'blockcache_backing_requests_in_flight'),
                    raw(d,'blockcache_backing_completed_bytes_total','read'),
                    raw(d,'blockcache_backing_completed_bytes_total','write'),
                    raw(d,'blockcache_backing_errors_total')]));
                document.body.dataset.polls=String(Number(document.body.dataset.polls||0)+1);
              }catch(e){document.getElementById('err').textContent='no answer from the server: '+e}
            }
            poll();setInterval(poll,1000);
            </script></body></html>
            """;
}

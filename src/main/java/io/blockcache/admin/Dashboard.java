package io.blockcache.admin;

/**
 * The dashboard page of {@code GET /}: one static HTML page whose script polls {@code /api/stats} every
 * second and shows the numbers per volume, for the cache device and per backing device. No charts yet.
 */
final class Dashboard {
    private Dashboard() {
    }

    /** The page; self-contained, no external resources (the admin API is often reached through a tunnel). */
    static final String HTML = """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>blockcache</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:2em;color:#222}
            table{border-collapse:collapse;margin-bottom:1.5em}
            td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
            th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
            #err{color:#b00}
            </style></head>
            <body><h1>blockcache</h1><p id="err"></p>
            <h2>Volumes</h2><table id="volumes"></table>
            <h2>Cache</h2><table id="cache"></table>
            <h2>Backing devices</h2><table id="backing"></table>
            <p>Raw: <a href="/api/stats">/api/stats</a> &middot; <a href="/metrics">/metrics</a>
             &middot; <a href="/api/knobs">/api/knobs</a></p>
            <script>
            function mib(b){return (b/1048576).toFixed(1)+' MiB'}
            function table(id,head,rows){
              const t=document.getElementById(id);t.textContent='';
              const h=t.insertRow();head.forEach(x=>{const c=document.createElement('th');c.textContent=x;h.appendChild(c)});
              rows.forEach(r=>{const row=t.insertRow();r.forEach(x=>{row.insertCell().textContent=x})});
            }
            async function poll(){
              try{
                const s=await (await fetch('/api/stats')).json();
                document.getElementById('err').textContent='';
                table('volumes',['volume','mode','size','hit ratio','dirty','cached','bypassed sectors',
                    'in flight','p50 µs','p99 µs','p99.9 µs'],
                  s.volumes.map(v=>[v.name,v.mode,mib(v.sizeBytes),(100*v.hitRatio).toFixed(1)+' %',mib(v.dirtyBytes),
                    mib(v.cachedBytes),v.bypassedSectors,v.requestsInFlight,v.latency.p50Us.toFixed(0),
                    v.latency.p99Us.toFixed(0),v.latency.p999Us.toFixed(0)]));
                const c=s.cache,b=c.buckets;
                table('cache',['occupancy','free','open','sealed','journal','metadata','journal seq','checkpoints'],
                  [[c.occupancyPercent.toFixed(1)+' %',b.free,b.open,b.sealed,b.journal,b.metadata,
                    c.journal.durableSequence,c.checkpointsWritten]]);
                table('backing',['device','queue depth','read sectors','written sectors','errors'],
                  s.backing.map(d=>[d.name,d.requestsInFlight,d.completedReadSectors,d.completedWriteSectors,d.errors]));
              }catch(e){document.getElementById('err').textContent='no answer from the server: '+e}
            }
            poll();setInterval(poll,1000);
            </script></body></html>
            """;
}

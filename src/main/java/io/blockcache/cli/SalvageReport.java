package io.blockcache.cli;

import io.blockcache.json.JsonWriter;
import io.blockcache.engine.SalvagePlan;
import io.blockcache.engine.SectorRanges;
import io.blockcache.format.AttachedBacking;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code blockcache salvage} recovered and could not, per volume, as text or JSON. Unrecoverable ranges are
 * listed in LBA order with their reason; recovered ones merged. CLI thread only.
 */
final class SalvageReport {
    /** An unrecoverable range of sectors and why. */
    record Lost(long startSector, long lengthSectors, String reason) {
    }

    /** One volume's results. */
    private static final class VolumeResult {
        final AttachedBacking backing;
        final SectorRanges recovered = new SectorRanges();
        final List<Lost> lost = new ArrayList<>();

        VolumeResult(AttachedBacking backing) {
            this.backing = backing;
        }
    }

    private final String cache;
    private final List<String> notes = new ArrayList<>();
    private final Map<Integer, VolumeResult> volumes = new LinkedHashMap<>();

    SalvageReport(String cache, String superblockNote, SalvagePlan plan) {
        this.cache = cache;
        notes.add(superblockNote);
        notes.addAll(plan.notes());
        for (SalvagePlan.VolumePlan volume : plan.volumes()) {
            VolumeResult result = new VolumeResult(volume.backing());
            volumes.put(volume.backing().volumeId(), result);
            for (SectorRanges.Range range : volume.unknown()) {
                result.lost.add(new Lost(range.startSector(), range.lengthSectors(), "newest version unknown: "
                        + volume.unknownReason()));
            }
        }
    }

    void recovered(int volumeId, long startSector, long lengthSectors) {
        volumes.get(volumeId).recovered.add(startSector, startSector + lengthSectors);
    }

    void lost(int volumeId, long startSector, long lengthSectors, String reason) {
        volumes.get(volumeId).lost.add(new Lost(startSector, lengthSectors, reason));
    }

    /** True if nothing is listed as unrecoverable. */
    boolean complete() {
        return volumes.values().stream().allMatch(volume -> volume.lost.isEmpty());
    }

    /** Sectors recovered in all volumes. */
    long recoveredSectors() {
        long sectors = 0;
        for (VolumeResult volume : volumes.values()) {
            for (SectorRanges.Range range : volume.recovered.ranges()) {
                sectors += range.lengthSectors();
            }
        }
        return sectors;
    }

    void printText(PrintWriter out) {
        out.println("salvage of " + cache);
        for (String note : notes) {
            out.println("  note: " + note);
        }
        for (VolumeResult volume : volumes.values()) {
            List<SectorRanges.Range> recovered = volume.recovered.ranges();
            long sectors = recovered.stream().mapToLong(SectorRanges.Range::lengthSectors).sum();
            out.println("volume \"" + volume.backing.exportName() + "\" (id " + volume.backing.volumeId() + ", "
                    + volume.backing.volumeSizeBytes() + " bytes): recovered " + recovered.size() + " ranges, "
                    + sectors * 512 + " bytes; unrecoverable " + volume.lost.size() + " ranges");
            for (SectorRanges.Range range : recovered) {
                out.println("  recovered     sectors " + range.startSector() + "+" + range.lengthSectors());
            }
            volume.lost.stream().sorted((a, b) -> Long.compare(a.startSector(), b.startSector())).forEach(lost ->
                    out.println("  UNRECOVERABLE sectors " + lost.startSector() + "+" + lost.lengthSectors()
                            + " (bytes " + lost.startSector() * 512 + ".." + (lost.startSector()
                            + lost.lengthSectors()) * 512 + "): " + lost.reason()));
        }
        out.println(complete() ? "result: every dirty range whose newest version is known was recovered"
                : "result: some ranges are unrecoverable (listed above)");
        out.flush();
    }

    String json() {
        JsonWriter json = new JsonWriter().beginObject().field("cache", cache).field("complete", complete());
        json.name("notes").beginArray();
        notes.forEach(json::value);
        json.endArray().name("volumes").beginArray();
        for (VolumeResult volume : volumes.values()) {
            json.beginObject().field("name", volume.backing.exportName()).field("volumeId", volume.backing.volumeId())
                    .field("sizeBytes", volume.backing.volumeSizeBytes());
            json.name("recovered").beginArray();
            for (SectorRanges.Range range : volume.recovered.ranges()) {
                json.beginObject().field("startSector", range.startSector())
                        .field("lengthSectors", range.lengthSectors()).endObject();
            }
            json.endArray().name("unrecoverable").beginArray();
            volume.lost.stream().sorted((a, b) -> Long.compare(a.startSector(), b.startSector())).forEach(lost ->
                    json.beginObject().field("startSector", lost.startSector())
                            .field("lengthSectors", lost.lengthSectors()).field("reason", lost.reason()).endObject());
            json.endArray().endObject();
        }
        return json.endArray().endObject().toString();
    }
}

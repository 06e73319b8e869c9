package io.blockcache.cli;

import io.blockcache.engine.CacheReport;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.json.JsonWriter;
import java.io.PrintWriter;
import java.util.List;

/** Renders a {@link CacheReport} for {@code check}: a human summary, or one JSON object. */
final class CheckReportFormat {
    private CheckReportFormat() {
    }

    /** The human summary, problems last so they are what the eye lands on. */
    static void printText(PrintWriter out, String path, CacheReport report) {
        out.println(path + ": " + (report.ok() ? "consistent" : "NOT CONSISTENT (" + report.problems().size()
                + " problems)"));
        CacheReport.SuperblockStatus superblock = report.superblock();
        if (superblock != null) {
            CacheSuperblock chosen = superblock.chosen();
            out.println("superblock  " + superblock.description());
            out.println("            cache set " + chosen.cacheSetUuid() + ", " + chosen.bucketCount() + " buckets of "
                    + ByteSizes.human(chosen.bucketSizeBytes()) + ", clean shutdown: "
                    + (chosen.cleanShutdown() ? "yes" : "no"));
        }
        CacheReport.JournalStatus journal = report.journal();
        if (journal != null) {
            out.println("journal     " + (journal.entriesReplayed() == 0 ? "nothing to replay"
                    : "replays sequences " + journal.firstReplayedSequence() + ".." + journal.lastValidSequence()
                    + " (" + journal.entriesReplayed() + " entries)") + "; last valid sequence "
                    + journal.lastValidSequence());
            out.println("            stop: " + journal.stopDescription());
            out.println("checkpoint  " + (journal.checkpointStartSequence() == 0 ? "none"
                    : "starts at sequence " + journal.checkpointStartSequence() + ", buckets "
                    + journal.checkpointBuckets() + ", " + journal.checkpointExtents() + " extents"));
        }
        CacheReport.BucketCounts buckets = report.buckets();
        if (buckets != null) {
            out.println("buckets     " + buckets.free() + " free, " + buckets.clean() + " clean, " + buckets.dirty()
                    + " dirty, " + buckets.journal() + " journal, " + buckets.metadata() + " metadata");
            out.println("extents     " + report.extents() + ", dirty " + ByteSizes.human(report.dirtyBytes()));
            for (CacheReport.VolumeReport volume : report.volumes()) {
                out.println("volume      \"" + volume.name() + "\" (id " + volume.volumeId() + ", "
                        + ByteSizes.human(volume.sizeBytes()) + "): " + volume.extents() + " extents, "
                        + ByteSizes.human(volume.cachedBytes()) + " cached, " + volume.dirtyBytes() + " bytes dirty");
            }
        }
        if (report.data() != null) {
            out.println("data        " + report.data().spansChecked() + " CRC spans and "
                    + report.data().blockCrcsChecked() + " block CRCs checked ("
                    + ByteSizes.human(report.data().bytesRead()) + " read), " + report.data().mismatches().size()
                    + " mismatches");
        }
        for (String note : report.notes()) {
            out.println("note        " + note);
        }
        for (String problem : report.problems()) {
            out.println("PROBLEM     " + problem);
        }
        out.flush();
    }

    /** One JSON object on one line; unknown values (a section that could not be examined) are null. */
    static String json(String path, CacheReport report) {
        JsonWriter json = new JsonWriter().beginObject().field("ok", report.ok()).field("cache", path);
        CacheReport.BucketCounts buckets = report.buckets();
        CacheReport.JournalStatus journal = report.journal();
        json.field("extents", report.extents()).field("dirtyBytes", report.dirtyBytes());
        if (buckets != null) {
            json.field("bucketsFree", buckets.free()).field("bucketsClean", buckets.clean())
                    .field("bucketsDirty", buckets.dirty()).field("bucketsJournal", buckets.journal())
                    .field("bucketsMetadata", buckets.metadata());
        } else {
            json.field("bucketsFree", (String) null).field("bucketsClean", (String) null)
                    .field("bucketsDirty", (String) null);
        }
        if (journal != null) {
            json.field("journalSeqFirst", journal.firstReplayedSequence())
                    .field("journalSeqLast", journal.lastValidSequence())
                    .field("journalEntriesReplayed", journal.entriesReplayed())
                    .field("journalStop", journal.stopDescription())
                    .field("checkpointStart", journal.checkpointStartSequence())
                    .name("checkpointBuckets").beginArray();
            journal.checkpointBuckets().forEach(bucket -> json.value(bucket.longValue()));
            json.endArray();
        } else {
            json.field("journalSeqFirst", (String) null).field("journalSeqLast", (String) null);
        }
        CacheReport.SuperblockStatus superblock = report.superblock();
        if (superblock != null) {
            CacheSuperblock chosen = superblock.chosen();
            json.field("cleanShutdown", chosen.cleanShutdown()).name("superblock").beginObject()
                    .field("copy", superblock.chosenCopy().name())
                    .field("otherCopy", superblock.otherStatus().name())
                    .field("description", superblock.description())
                    .field("sequence", chosen.sequence())
                    .field("cacheSetUuid", chosen.cacheSetUuid().toString())
                    .field("bucketSizeBytes", chosen.bucketSizeBytes())
                    .field("bucketCount", chosen.bucketCount())
                    .field("journalBuckets", chosen.journalBuckets()).endObject();
        } else {
            json.field("superblock", (String) null);
        }
        json.name("volumes").beginArray();
        for (CacheReport.VolumeReport volume : report.volumes()) {
            json.beginObject().field("id", volume.volumeId()).field("name", volume.name())
                    .field("sizeBytes", volume.sizeBytes()).field("extents", volume.extents())
                    .field("cachedBytes", volume.cachedBytes()).field("dirtyBytes", volume.dirtyBytes()).endObject();
        }
        json.endArray();
        if (report.data() != null) {
            json.name("data").beginObject().field("spansChecked", report.data().spansChecked())
                    .field("blockCrcsChecked", report.data().blockCrcsChecked())
                    .field("bytesRead", report.data().bytesRead()).name("mismatches").beginArray();
            for (CacheReport.CrcMismatch mismatch : report.data().mismatches()) {
                json.beginObject().field("bucket", mismatch.bucket())
                        .field("crcOffsetInBucketSectors", mismatch.crcOffsetInBucketSectors())
                        .field("crcLengthSectors", mismatch.crcLengthSectors())
                        .field("volume", mismatch.volumeName()).field("startSector", mismatch.startSector())
                        .field("lengthSectors", mismatch.lengthSectors()).endObject();
            }
            json.endArray().endObject();
        }
        strings(json, "notes", report.notes());
        return strings(json, "problems", report.problems()).endObject().toString();
    }

    private static JsonWriter strings(JsonWriter json, String name, List<String> values) {
        json.name(name).beginArray();
        values.forEach(json::value);
        return json.endArray();
    }
}

package io.blockcache.fuzz;

import io.blockcache.json.JsonWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a batch of fuzz seeds did together: the summary line and JSON object of {@code simulate fuzz}, and the
 * violations found. Not thread-safe; the runner adds results from one thread.
 */
public final class FuzzTotals {
    private long seeds;
    private long crashes;
    private long cleanRestarts;
    private long faultsInjected;
    private long mediaFaults;
    private long checksumCatches;
    private long evictions;
    private long compactedBuckets;
    private long checkpoints;
    private long ringWraps;
    private long operations;
    private long controlActions;
    private long prefixChecks;
    private long prefixViolationsUnordered;
    private long prefixChecksAcrossRestart;
    private long orderingSwitches;
    private final Set<String> modesCovered = new TreeSet<>();
    private long damageChecks;
    private long damageChecksStale;
    private long damageChecksConsistent;
    private long damageMapFiles;
    private long objectStoreVolumes;
    private long chunkPasses;
    private long drainJobActions;
    private long journaledVolumes;
    private long logGroups;
    private long diskFullRefusals;
    private long volumeChanges;
    private long volumeChangeCuts;
    private long volumeChangesWithLog;
    private final List<FuzzViolation> violations = new ArrayList<>();

    /** Adds a seed that passed. */
    public void add(FuzzResult result) {
        seeds++;
        crashes += result.crashes();
        cleanRestarts += result.cleanRestarts();
        faultsInjected += result.faultsInjected();
        mediaFaults += result.mediaFaults();
        checksumCatches += result.checksumCatches();
        evictions += result.evictions();
        compactedBuckets += result.compactedBuckets();
        checkpoints += result.checkpoints();
        ringWraps += result.ringWraps();
        operations += result.operations();
        controlActions += result.controlActions();
        prefixChecks += result.prefixChecks();
        prefixViolationsUnordered += result.prefixViolationsUnordered();
        prefixChecksAcrossRestart += result.prefixChecksAcrossRestart();
        orderingSwitches += result.orderingSwitches();
        damageChecks += result.damageChecks();
        damageChecksStale += result.damageChecksStale();
        damageChecksConsistent += result.damageChecksConsistent();
        damageMapFiles += result.damageMapFiles();
        objectStoreVolumes += result.objectStoreVolumes();
        chunkPasses += result.chunkPasses();
        drainJobActions += result.drainJobActions();
        journaledVolumes += result.journaledVolumes();
        logGroups += result.logGroups();
        diskFullRefusals += result.diskFullRefusals();
        volumeChanges += result.volumeChanges();
        volumeChangeCuts += result.volumeChangeCuts();
        volumeChangesWithLog += result.volumeChangesWithLog();
        modesCovered.addAll(result.modesCovered());
    }

    /** Adds a seed that broke an oracle. */
    public void add(FuzzViolation violation) {
        seeds++;
        violations.add(violation);
    }

    /** Seeds run. */
    public long seeds() {
        return seeds;
    }

    /** Violations found, in the order added. */
    public List<FuzzViolation> violations() {
        return List.copyOf(violations);
    }

    /** Power cuts, nested ones included. */
    public long crashes() {
        return crashes;
    }

    /** Faults injected. */
    public long faultsInjected() {
        return faultsInjected;
    }

    /** Blocks of clean cached data damaged (checksums must catch them). */
    public long mediaFaults() {
        return mediaFaults;
    }

    /** Cache reads whose CRC32C failed. */
    public long checksumCatches() {
        return checksumCatches;
    }

    /** Damage-map oracle checks. */
    public long damageChecks() {
        return damageChecks;
    }

    /** Damage-map oracle checks whose map listed stale ranges. */
    public long damageChecksStale() {
        return damageChecksStale;
    }

    /** Buckets evicted. */
    public long evictions() {
        return evictions;
    }

    /** Dirty buckets GC chose for compaction. */
    public long compactedBuckets() {
        return compactedBuckets;
    }

    /** Checkpoints written. */
    public long checkpoints() {
        return checkpoints;
    }

    /** Journal ring laps. */
    public long ringWraps() {
        return ringWraps;
    }

    /** Prefix-oracle checks of volumes with epoch ordering. */
    public long prefixChecks() {
        return prefixChecks;
    }

    /** Prefix checks judged by the history before a restart (recovered epochs being written back). */
    public long prefixChecksAcrossRestart() {
        return prefixChecksAcrossRestart;
    }

    /** Live switches of a volume's ordering knob. */
    public long orderingSwitches() {
        return orderingSwitches;
    }

    /** Prefix-oracle checks of unordered volumes that found no FLUSH boundary (not failures). */
    public long prefixViolationsUnordered() {
        return prefixViolationsUnordered;
    }

    /** Damage-map checks of a map flagged consistent as of an epoch. */
    public long damageChecksConsistent() {
        return damageChecksConsistent;
    }

    /** Volumes whose damage map lived in a map file. */
    public long damageMapFiles() {
        return damageMapFiles;
    }

    /** Volumes whose backing device was an object store model. */
    public long objectStoreVolumes() {
        return objectStoreVolumes;
    }

    /** Writeback passes of a whole or partial chunk on those object stores. */
    public long chunkPasses() {
        return chunkPasses;
    }

    /** Drain jobs started capped, paused, resumed or cancelled. */
    public long drainJobActions() {
        return drainJobActions;
    }

    /** Volumes with a backing log and {@code ordering=journaled}. */
    public long journaledVolumes() {
        return journaledVolumes;
    }

    /** Groups journaled write-back committed to backing logs. */
    public long logGroups() {
        return logGroups;
    }

    /** Cache-device writes refused with ENOSPC while the cache's file system was full. */
    public long diskFullRefusals() {
        return diskFullRefusals;
    }

    /** Cache modes covered. */
    public Set<String> modesCovered() {
        return Set.copyOf(modesCovered);
    }

    /** The one-line summary. */
    public String summaryLine() {
        return String.format("fuzz: %d seeds, %d violations, %d crashes, %d clean restarts, %d faults injected "
                        + "(%d media, %d caught by checksums), modes %s, %d evictions, %d buckets compacted, "
                        + "%d checkpoints, "
                        + "%d ring wraps, %d operations, %d control actions, %d prefix checks (epochs; %d of them "
                        + "across a restart; unordered volumes broke the prefix %d times), %d live ordering switches, "
                        + "%d damage-map checks (%d with stale ranges, %d of a map flagged consistent; %d volumes with "
                        + "the map in a file), %d volumes on an object store (%d chunk passes), %d drain job actions, "
                        + "%d journaled volumes (%d log groups), %d cache writes refused by a full disk, "
                        + "%d volumes removed and added live (%d power cuts during it, %d with a backing log)",
                seeds,
                violations.size(), crashes, cleanRestarts, faultsInjected, mediaFaults, checksumCatches, modesCovered,
                evictions, compactedBuckets, checkpoints, ringWraps, operations, controlActions, prefixChecks,
                prefixChecksAcrossRestart, prefixViolationsUnordered, orderingSwitches, damageChecks,
                damageChecksStale, damageChecksConsistent, damageMapFiles, objectStoreVolumes, chunkPasses,
                drainJobActions, journaledVolumes, logGroups, diskFullRefusals, volumeChanges, volumeChangeCuts,
                volumeChangesWithLog);
    }

    /** The summary as one JSON object: seeds, violations and the failing seeds first, then every count above. */
    public String json() {
        JsonWriter json = new JsonWriter().beginObject().field("seeds", seeds).field("violations", violations.size())
                .name("failingSeeds").beginArray();
        violations.forEach(violation -> json.value(violation.seed()));
        json.endArray().field("crashes", crashes).field("cleanRestarts", cleanRestarts)
                .field("faultsInjected", faultsInjected).field("mediaFaults", mediaFaults)
                .field("checksumCatches", checksumCatches).name("modesCovered").beginArray();
        modesCovered.forEach(json::value);
        return json.endArray().field("evictions", evictions).field("compactedBuckets", compactedBuckets)
                .field("checkpoints", checkpoints).field("ringWraps", ringWraps).field("operations", operations)
                .field("controlActions", controlActions).field("prefixChecks", prefixChecks)
                .field("prefixChecksAcrossRestart", prefixChecksAcrossRestart)
                .field("orderingSwitches", orderingSwitches)
                .field("prefixViolationsUnordered", prefixViolationsUnordered).field("damageChecks", damageChecks)
                .field("damageChecksStale", damageChecksStale).field("damageChecksConsistent", damageChecksConsistent)
                .field("damageMapFiles", damageMapFiles).field("objectStoreVolumes", objectStoreVolumes)
                .field("chunkPasses", chunkPasses).field("drainJobActions", drainJobActions)
                .field("journaledVolumes", journaledVolumes).field("logGroups", logGroups)
                .field("diskFullRefusals", diskFullRefusals).field("volumeChanges", volumeChanges)
                .field("volumeChangeCuts", volumeChangeCuts).field("volumeChangesWithLog", volumeChangesWithLog)
                .endObject().toString();
    }
}

package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackingWriteGateTest {
    @Test
    void overlappingWritesStartInSubmissionOrderAndOthersPassAtOnce() {
        // Proves the gate: an overlapping write waits for every earlier overlapping one; disjoint ones do not wait.
        BackingWriteGate gate = new BackingWriteGate();
        List<String> started = new ArrayList<>();
        List<Runnable> releases = new ArrayList<>();
        gate.run(0, 10, release -> { started.add("a"); releases.add(release); });
        gate.run(5, 10, release -> { started.add("b"); releases.add(release); });
        gate.run(100, 10, release -> { started.add("c"); releases.add(release); });
        gate.run(8, 1, release -> { started.add("d"); releases.add(release); });
        assertThat(started).containsExactly("a", "c");
        releases.get(0).run(); // a done: b may start; d still waits for b
        assertThat(started).containsExactly("a", "c", "b");
        releases.get(2).run(); // b done
        assertThat(started).containsExactly("a", "c", "b", "d");
        releases.get(1).run();
        releases.get(3).run();
        assertThat(gate.size()).isZero();
    }
}

/**
 * Benchmarks and experiments: scenario runners that print tables and JSON and draw PNG charts. Experiments
 * that need disks run the engine in simulated time on the HDD/SSD models; CPU-bound ones run in real time.
 * Benchmarks measure and write results; they are not tests.
 *
 * <p>May use the wall clock (for real-time experiments) and the JDK's headless AWT (for charts).
 */
package io.blockcache.bench;

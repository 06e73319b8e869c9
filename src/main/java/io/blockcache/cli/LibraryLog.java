package io.blockcache.cli;

import io.blockcache.log.EventSink;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J provider of the command line: the libraries that log through SLF4J (Ratis, the AWS SDK, Apache
 * HttpClient) have their warnings and errors written to serve's log as {@code lib.warning} and {@code lib.error}
 * events ({@link LibraryLogger}); their info, debug and trace go nowhere. Until serve's {@link EventLog} is handed
 * over ({@link #forwardTo}), and in every other command, it drops everything, errors too: a command's failure
 * reaches its user as the command's own one-line error (the library's exception), and a client command's stderr
 * stays what its scripts expect.
 *
 * <p>It is chosen by the {@code slf4j.provider} system property ({@link #select}, from {@link Main#main}), not by a
 * {@code META-INF/services} file: the plain jar is also a library (docs/EMBEDDING.md), and a service file there would
 * compete with an embedding application's own provider (Logback, Log4j) and could swallow its library logs.
 *
 * <p>Thread rule: any thread; {@link #forwardTo} publishes the sink through a volatile field.
 */
public final class LibraryLog implements SLF4JServiceProvider {
    /** SLF4J's system property that names the provider, read at its first use (SLF4J 2.0.9 and later). */
    static final String PROVIDER_PROPERTY = "slf4j.provider";
    /** SLF4J's own verbosity: at its default (INFO) it announces the provider of {@link #PROVIDER_PROPERTY}. */
    static final String VERBOSITY_PROPERTY = "slf4j.internal.verbosity";

    private static volatile EventSink sink = EventSink.NONE;

    private final ILoggerFactory loggers = new Loggers();
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();

    /** For SLF4J, which makes it from {@link #PROVIDER_PROPERTY}. */
    public LibraryLog() {
    }

    /**
     * Makes this the provider SLF4J binds at its first use, unless the user named one ({@code -Dslf4j.provider=}),
     * and keeps SLF4J's own announcement of it off stderr. Call before any library logs: first thing in main.
     */
    static void select() {
        if (System.getProperty(PROVIDER_PROPERTY) == null) {
            System.setProperty(PROVIDER_PROPERTY, LibraryLog.class.getName());
            if (System.getProperty(VERBOSITY_PROPERTY) == null) {
                System.setProperty(VERBOSITY_PROPERTY, "WARN");
            }
        }
    }

    /** From now on library warnings and errors go to {@code log} (serve's, once it exists). */
    static void forwardTo(EventSink log) {
        sink = log;
    }

    /**
     * Binds SLF4J now (so its own complaints, if any, come at the start, not at a library's first warning) and says
     * what went wrong if {@link #select} chose this provider and SLF4J bound another; null when all is well or when
     * the provider was not chosen here (a {@code -Dslf4j.provider} of the user's, or a test calling a command).
     */
    static String bindingProblem() {
        ILoggerFactory bound = LoggerFactory.getILoggerFactory();
        if (!LibraryLog.class.getName().equals(System.getProperty(PROVIDER_PROPERTY)) || bound instanceof Loggers) {
            return null;
        }
        return "library warnings are not in this log: SLF4J is bound to " + bound.getClass().getName();
    }

    /** Where library events go now: {@link EventSink#NONE} before {@link #forwardTo}. */
    static EventSink sink() {
        return sink;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99"; // SLF4J's advice for a provider of any 2.0.x API
    }

    @Override
    public void initialize() {
        // nothing to set up: the loggers read the sink when they log
    }

    /** A new {@link LibraryLogger} per name (SLF4J's callers keep theirs in a static field). */
    private static final class Loggers implements ILoggerFactory {
        @Override
        public org.slf4j.Logger getLogger(String name) {
            return new LibraryLogger(name, LibraryLog::sink, LibraryLogger.SHARED_LIMIT, System::nanoTime);
        }
    }
}

package io.blockcache.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Where an option lives in the config file when it does not live at the usual key, its long name without the
 * dashes ({@code --cache-size} at {@code cache-size}); read by {@link ConfigDefaults}. Without this annotation an
 * option has the usual key, so a new option of a command with {@code --config} is in the config file with nothing
 * more to write.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
@interface ConfigKey {
    /** The value for an option that is a flag only, never read from the config file. */
    String NONE = "";
    /** The placeholder for the name in a per-name key such as {@code export.NAME.allow-addresses}. */
    String NAME = "NAME";

    /**
     * The key; {@link #NONE} for a flag only; a key with {@link #NAME} in it holds one entry per name (a
     * {@code Map} option: {@code export.a.allow-addresses=...} is the entry {@code a} of {@code --allow-addresses}).
     */
    String value();
}

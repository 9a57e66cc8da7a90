package io.streamfusion.backend;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares the option tables of a reference page in docs/ with the {@link ConfigOption}s a class
 * declares, so that neither can change without the other: every option has a row with its key and
 * its default, and every row under the prefix names a declared option.
 */
public final class DocumentedOptions {

    /** A table row whose first cell is a code-formatted option key: its key and default cell. */
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.\\-]+)` \\| ([^|]*) \\|");

    private DocumentedOptions() {}

    /** The docs/ page {@code name}, found from a module's working directory. */
    public static Path docsPage(String name) {
        Path here = Path.of("").toAbsolutePath();
        for (Path dir = here; dir != null; dir = dir.getParent()) {
            Path page = dir.resolve("docs").resolve(name);
            if (Files.isRegularFile(page)) {
                return page;
            }
        }
        throw new IllegalStateException("No docs/" + name + " above " + here);
    }

    /**
     * The problems found, empty when the page documents exactly the options of {@code options}
     * whose keys start with {@code prefix}, each with its default.
     */
    public static List<String> problems(Path page, Class<?> options, String prefix)
            throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line);
            if (row.find() && row.group(1).startsWith(prefix)) {
                documented.put(row.group(1), row.group(2).trim());
            }
        }
        List<String> problems = new ArrayList<>();
        Map<String, ConfigOption<?>> declared = declaredOptions(options);
        for (ConfigOption<?> option : declared.values()) {
            String cell = documented.get(option.key());
            if (cell == null) {
                problems.add(option.key() + " is not documented in " + page.getFileName());
            } else if (!defaultMatches(option, cell)) {
                problems.add(
                        option.key()
                                + " is documented with default '"
                                + cell
                                + "' but defaults to '"
                                + rendered(option)
                                + "'");
            }
        }
        for (String key : documented.keySet()) {
            if (!declared.containsKey(key)) {
                problems.add(key + " is documented but " + options.getSimpleName() + " lacks it");
            }
        }
        return problems;
    }

    private static Map<String, ConfigOption<?>> declaredOptions(Class<?> options) {
        Map<String, ConfigOption<?>> declared = new LinkedHashMap<>();
        for (Field field : options.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && ConfigOption.class.isAssignableFrom(field.getType())) {
                try {
                    ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                    declared.put(option.key(), option);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return declared;
    }

    /** A default cell matches when it starts with the rendered default ("unset" for none). */
    private static boolean defaultMatches(ConfigOption<?> option, String cell) {
        return normalized(cell).startsWith(normalized(rendered(option)));
    }

    private static String rendered(ConfigOption<?> option) {
        if (!option.hasDefaultValue()) {
            return "unset";
        }
        Object value = option.defaultValue();
        if (value instanceof MemorySize) {
            return ((MemorySize) value).toString();
        }
        if (value instanceof Duration) {
            return TimeUtils.formatWithHighestUnit((Duration) value);
        }
        if (value instanceof List && ((List<?>) value).isEmpty()) {
            return "empty";
        }
        return String.valueOf(value);
    }

    private static String normalized(String text) {
        return text.replace("`", "").replace(" ", "").toLowerCase(Locale.ROOT);
    }
}

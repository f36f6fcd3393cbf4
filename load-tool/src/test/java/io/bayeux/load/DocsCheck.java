package io.bayeux.load;

import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds what a Markdown page shows that no longer exists: relative links to missing files or to
 * missing {@code #anchors} (GitHub's heading slugs), {@code bin/...} commands naming no script,
 * {@code -pl} modules that are not there, and {@code --options} that {@code bin/bayeux-load}
 * (and its sub-commands), {@code bin/bayeux-demo} and {@code bin/bayeux-cluster} do not take.
 *
 * <p>Commands are read from fenced blocks without a language or marked as shell, and from inline
 * code spans that start with {@code bin/}; a quoted argument ({@code --a 'bin/bayeux-load server
 * --port $PORT'}) and a {@code #} comment are read as command lines of their own.
 *
 * <p>The options are read where the commands define them: {@code bin/bayeux-load}'s from its
 * picocli model, the demo's and CometD's server's from the {@code "--option"} string literals
 * their sources match arguments against, {@code bin/bayeux-cluster}'s from the script's
 * {@code case} labels. Not thread-safe; one instance per check.
 */
final class DocsCheck {
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)\\s*([\\w+-]*).*$");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern SCRIPT = Pattern.compile("(?:\\./)?(bin/[\\w.-]+)");
    private static final Pattern OPTION_LITERAL = Pattern.compile("\"(--[a-z][a-z0-9-]*)\"");
    private static final Pattern CASE_LABEL = Pattern.compile("(?m)^\\s*(--[a-z][a-z0-9-]*)(?:\\|[^)]*)?\\)");
    private static final Set<String> SHELL_BLOCKS = Set.of("", "sh", "bash", "shell", "console");
    private static final String LOAD = "bin/bayeux-load";

    private final Path root;
    /** Options per command: {@code bin/bayeux-load}, {@code bin/bayeux-load server}, {@code bin/bayeux-demo}, ... */
    private final Map<String, Set<String>> options;
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    DocsCheck(Path root, Map<String, Set<String>> options) {
        this.root = root.toAbsolutePath().normalize();
        this.options = Map.copyOf(options);
    }

    /** A check of the repository at {@code root}, with the options its commands take today. */
    static DocsCheck of(Path root) {
        Map<String, Set<String>> options = new HashMap<>();
        CommandLine load = LoadTool.commandLine();
        options.put(LOAD, namesOf(load));
        load.getSubcommands().forEach((name, sub) -> options.put(LOAD + " " + name, namesOf(sub)));
        options.put(LOAD + " cometd-server", literalOptions(root.resolve("load-tool/cometd-server/src/main/java")));
        options.put("bin/bayeux-demo", literalOptions(root.resolve("examples/src/main/java")));
        options.put("bin/bayeux-cluster", matches(CASE_LABEL, read(root.resolve("bin/bayeux-cluster"))));
        options.forEach((command, names) -> {
            if (!names.contains("--help") && !names.contains("--port") && !names.contains("--base-port")) {
                throw new IllegalStateException("Found no options of " + command + ": " + names);
            }
        });
        return new DocsCheck(root, options);
    }

    /** The problems of one page, each as {@code file:line: what}. */
    List<String> check(Path file) {
        return check(file, read(file));
    }

    /** The problems of {@code text}, read as the page at {@code file}. */
    List<String> check(Path file, String text) {
        List<String> problems = new ArrayList<>();
        String name = root.relativize(file.toAbsolutePath().normalize()).toString();
        anchors.put(file.toAbsolutePath().normalize(), slugsOf(text));
        String[] lines = text.split("\n", -1);
        String fence = null;
        boolean shell = false;
        StringBuilder logical = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = name + ":" + (i + 1) + ": ";
            Matcher f = FENCE.matcher(line);
            if (fence == null && f.matches()) {
                fence = f.group(1);
                shell = SHELL_BLOCKS.contains(f.group(2).toLowerCase(Locale.ROOT));
                continue;
            }
            if (fence != null) {
                if (line.trim().startsWith(fence)) {
                    fence = null;
                } else if (shell) {
                    // A trailing backslash continues the command on the next line.
                    if (line.endsWith("\\")) {
                        logical.append(line, 0, line.length() - 1).append(' ');
                        continue;
                    }
                    scanCommandLine(logical.append(line).toString(), where, problems);
                    logical.setLength(0);
                }
                continue;
            }
            Matcher span = CODE_SPAN.matcher(line);
            while (span.find()) {
                String code = span.group(2).trim();
                if (SCRIPT.matcher(code).lookingAt()) {
                    scanCommandLine(code, where, problems);
                }
            }
            Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (link.find()) {
                checkLink(file, link.group(2), where, problems);
            }
        }
        return problems;
    }

    /** GitHub's anchor for a heading: its text in lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("*", "");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "").replace(' ', '-');
    }

    private void checkLink(Path file, String target, String where, List<String> problems) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return; // http:, https:, mailto: ...
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : (path.startsWith("/") ? root.resolve(path.substring(1)) : file.getParent().resolve(path));
        resolved = resolved.toAbsolutePath().normalize();
        if (!resolved.startsWith(root) || !(anchors.containsKey(resolved) || Files.exists(resolved))) {
            problems.add(where + "link to a missing file: " + target);
            return;
        }
        if (anchor != null && resolved.toString().endsWith(".md") && !anchorsOf(resolved).contains(anchor)) {
            problems.add(where + "link to a missing heading: " + target);
        }
    }

    private Set<String> anchorsOf(Path page) {
        return anchors.computeIfAbsent(page, p -> slugsOf(read(p)));
    }

    /** The anchors of a page's headings, outside code blocks; a repeated one gets {@code -1}, {@code -2}, ... */
    private static Set<String> slugsOf(String text) {
        Set<String> slugs = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        for (String line : text.split("\n")) {
            if (FENCE.matcher(line).matches()) {
                inFence = !inFence;
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (!inFence && h.matches()) {
                String s = slug(h.group(1));
                int n = seen.merge(s, 1, Integer::sum);
                slugs.add(n == 1 ? s : s + "-" + (n - 1));
            }
        }
        return slugs;
    }

    private void scanCommandLine(String line, String where, List<String> problems) {
        List<Token> command = new ArrayList<>();
        for (Token token : tokens(line, where, problems)) {
            if (token.operator()) {
                checkCommand(command, where, problems);
                command = new ArrayList<>();
            } else {
                command.add(token);
            }
        }
        checkCommand(command, where, problems);
    }

    private void checkCommand(List<Token> command, String where, List<String> problems) {
        for (Token token : command) {
            if (token.quoted()) {
                scanCommandLine(token.text(), where, problems);
            }
        }
        for (int i = 0; i < command.size(); i++) {
            Token token = command.get(i);
            if (token.quoted()) {
                continue;
            }
            if (token.text().equals("mvn")) {
                checkModules(command.subList(i + 1, command.size()), where, problems);
            }
            Matcher script = SCRIPT.matcher(token.text());
            if (!script.matches()) {
                continue;
            }
            String name = script.group(1);
            Path path = root.resolve(name);
            if (!Files.isRegularFile(path)) {
                problems.add(where + "no such script: " + name);
                return;
            }
            List<Token> args = command.subList(i + 1, command.size());
            String key = name;
            if (name.equals(LOAD) && !args.isEmpty() && !args.get(0).quoted() && !args.get(0).text().startsWith("-")) {
                key = LOAD + " " + args.get(0).text();
                if (!options.containsKey(key)) {
                    problems.add(where + "no such command: " + key);
                    return;
                }
            }
            Set<String> known = options.get(key);
            if (known != null) {
                for (Token arg : args) {
                    String option = arg.quoted() ? "" : arg.text().replaceAll("[\\[\\]]|\\.\\.\\.$|,$", "");
                    int eq = option.indexOf('=');
                    option = eq < 0 ? option : option.substring(0, eq);
                    if (option.startsWith("--") && option.length() > 2 && !known.contains(option)) {
                        problems.add(where + key + " has no option " + option);
                    }
                }
            }
            return;
        }
    }

    private void checkModules(List<Token> args, String where, List<String> problems) {
        for (int i = 0; i + 1 < args.size(); i++) {
            String flag = args.get(i).text();
            if (flag.equals("-pl") || flag.equals("--projects")) {
                for (String module : args.get(i + 1).text().split(",")) {
                    if (!Files.isRegularFile(root.resolve(module.replaceFirst("^[!-]", "")).resolve("pom.xml"))) {
                        problems.add(where + "no such module: " + module);
                    }
                }
            }
        }
    }

    /** Splits a shell line into words, quoted strings and the operators between commands. */
    private List<Token> tokens(String line, String where, List<String> problems) {
        List<Token> tokens = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'' || c == '"') {
                int end = line.indexOf(c, i + 1);
                end = end < 0 ? line.length() : end;
                flush(word, tokens);
                tokens.add(new Token(line.substring(i + 1, end), true, false));
                i = end;
            } else if (c == '#' && word.isEmpty()) {
                flush(word, tokens);
                // A comment may show a command too.
                tokens.add(new Token(";", false, true));
                scanCommandLine(line.substring(i + 1), where, problems);
                return tokens;
            } else if (";&|()<>".indexOf(c) >= 0) {
                flush(word, tokens);
                tokens.add(new Token(String.valueOf(c), false, true));
            } else if (Character.isWhitespace(c)) {
                flush(word, tokens);
            } else {
                word.append(c);
            }
        }
        flush(word, tokens);
        return tokens;
    }

    private static void flush(StringBuilder word, List<Token> tokens) {
        if (!word.isEmpty()) {
            tokens.add(new Token(word.toString(), false, false));
            word.setLength(0);
        }
    }

    private static Set<String> namesOf(CommandLine command) {
        Set<String> names = new TreeSet<>();
        for (OptionSpec option : command.getCommandSpec().options()) {
            names.addAll(List.of(option.names()));
        }
        return names;
    }

    private static Set<String> literalOptions(Path sources) {
        try (Stream<Path> files = Files.walk(sources)) {
            Set<String> names = new TreeSet<>();
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> names.addAll(matches(OPTION_LITERAL, read(p))));
            return names;
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    private record Token(String text, boolean quoted, boolean operator) {
    }
}

package io.bayeux.examples;

import org.junit.jupiter.api.Test;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Java example of the README and of {@code docs/} compiles against the current API. An example
 * that declares a class is compiled as it stands; a fragment is compiled as the body of a method, with
 * the project's packages imported, a {@code bayeux} server and a {@code client} in scope, and the
 * application's own {@code reload(channel)} (how it catches up when a gap cannot be filled).
 */
class DocsExamplesTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS_NAME = Pattern.compile("(?m)^public (?:final )?(?:class|record|interface) (\\w+)");
    private static final String FRAGMENT_IMPORTS = """
            import io.bayeux.api.*;
            import io.bayeux.api.client.*;
            import io.bayeux.api.server.*;
            import io.bayeux.client.*;
            import io.bayeux.client.ext.*;
            import io.bayeux.cluster.redis.*;
            import io.bayeux.oort.*;
            import io.bayeux.transport.*;
            import java.time.*;
            import java.util.*;
            """;

    @Test
    void everyJavaExampleCompiles() throws Exception {
        Path root = Path.of("..");
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(page -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        Path dir = Files.createTempDirectory("docs-examples");
        List<String> sources = new ArrayList<>();
        for (Path page : pages) {
            sources.addAll(writeExamples(page, dir));
        }
        assertTrue(sources.size() >= 10, "the README and docs/ show their server, client and cluster examples: " + sources);
        List<String> arguments = new ArrayList<>(List.of("-d", dir.toString(), "-cp", System.getProperty("java.class.path")));
        arguments.addAll(sources);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = compiler.run(null, null, errors, arguments.toArray(String[]::new));
        assertEquals(0, status, errors.toString(StandardCharsets.UTF_8));
    }

    /** Writes each Java block of {@code page} as a source file under {@code dir}, named after the page and its line. */
    private static List<String> writeExamples(Path page, Path dir) throws IOException {
        String text = Files.readString(page);
        String pageName = page.getFileName().toString().replaceAll("\\W", "_");
        List<String> sources = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(text);
        while (block.find()) {
            String code = block.group(1);
            int line = (int) text.substring(0, block.start()).lines().count() + 1;
            Matcher name = CLASS_NAME.matcher(code);
            Path source;
            if (name.find()) {
                // One directory per example, so two pages may both show a class of the same name.
                Path own = Files.createDirectories(dir.resolve(pageName + "_" + line));
                source = own.resolve(name.group(1) + ".java");
                Files.writeString(source, code.contains("import ") ? code : FRAGMENT_IMPORTS + code);
            } else {
                String className = pageName + "_line" + line;
                source = dir.resolve(className + ".java");
                Files.writeString(source, FRAGMENT_IMPORTS + "// " + page + ", line " + line + "\n"
                        + "class " + className + " {\n"
                        + "    BayeuxServer bayeux;\n"
                        + "    BayeuxClient client;\n"
                        + "    void reload(String channel) {}\n"
                        + "    void example() throws Exception {\n" + code + "\n    }\n}\n");
            }
            sources.add(source.toString());
        }
        return sources;
    }
}

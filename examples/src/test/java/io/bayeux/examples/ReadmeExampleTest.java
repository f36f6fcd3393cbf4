package io.bayeux.examples;

import org.junit.jupiter.api.Test;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java examples of the README compile against the current API. */
class ReadmeExampleTest {
    @Test
    void theReadmesJavaExamplesCompile() throws Exception {
        String text = Files.readString(Path.of("..", "README.md"));
        Matcher matcher = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(text);
        Pattern className = Pattern.compile("public (?:final )?class (\\w+)");
        Path dir = Files.createTempDirectory("readme-examples");
        List<String> sources = new ArrayList<>();
        while (matcher.find()) {
            Matcher name = className.matcher(matcher.group(1));
            assertTrue(name.find(), "each README example declares a public class:\n" + matcher.group(1));
            Path source = dir.resolve(name.group(1) + ".java");
            Files.writeString(source, matcher.group(1));
            sources.add(source.toString());
        }
        assertTrue(sources.size() >= 3, "the README has its embedding, service and client examples: " + sources);
        List<String> arguments = new ArrayList<>(List.of("-d", dir.toString(), "-cp", System.getProperty("java.class.path")));
        arguments.addAll(sources);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = compiler.run(null, null, errors, arguments.toArray(String[]::new));
        assertEquals(0, status, errors.toString(StandardCharsets.UTF_8));
    }
}

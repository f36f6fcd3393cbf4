package io.bayeux.examples;

import org.junit.jupiter.api.Test;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedding example of the README compiles against the current API. */
class ReadmeExampleTest {
    @Test
    void theReadmesEmbeddingExampleCompiles() throws Exception {
        Path readme = Path.of("..", "README.md");
        String text = Files.readString(readme);
        Matcher matcher = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(text);
        assertTrue(matcher.find(), "README has a java example");
        Path dir = Files.createTempDirectory("readme-example");
        Path source = dir.resolve("Main.java");
        Files.writeString(source, matcher.group(1));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = compiler.run(null, null, errors, "-d", dir.toString(),
                "-cp", System.getProperty("java.class.path"), source.toString());
        assertEquals(0, status, errors.toString(StandardCharsets.UTF_8));
    }
}

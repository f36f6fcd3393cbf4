package io.bayeux.load;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every link and every command that the README, CONTRIBUTING, CHANGELOG and the {@code docs/}
 * pages show still exists; the cases below pin what the check catches.
 */
class DocsCheckTest {
    private static Path root;
    private static DocsCheck check;

    @BeforeAll
    static void findRepository() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("bin")))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "no README.md and bin/ above " + Path.of("").toAbsolutePath());
        root = dir;
        check = DocsCheck.of(root);
    }

    @Test
    void everyLinkAndCommandOfTheDocsExists() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CONTRIBUTING.md"), root.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> problems = new ArrayList<>();
        for (Path page : pages) {
            assertTrue(Files.isRegularFile(page), "missing " + page);
            problems.addAll(check.check(page));
        }
        assertEquals(List.of(), problems, "broken links or commands:\n" + String.join("\n", problems));
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsReported() {
        List<String> problems = checkText("""
                See [history](history.md), [its recovery](history.md#recovery) and [the top](#a-page).
                # A page
                See [nothing](missing.md), [no heading](history.md#no-such-heading) and [here](#nowhere).
                """);
        assertEquals(List.of(
                "docs/page.md:3: link to a missing file: missing.md",
                "docs/page.md:3: link to a missing heading: history.md#no-such-heading",
                "docs/page.md:3: link to a missing heading: #nowhere"), problems);
    }

    @Test
    void anOptionACommandDoesNotTakeIsReported() {
        List<String> problems = checkText("""
                ```
                bin/bayeux-load --url http://127.0.0.1:8080/cometd --clients 10 --bogus 1
                bin/bayeux-load server --port 8080 --history-size=10 --no-such-flag &
                bin/bayeux-demo --port 8081 \\
                    --oort-secret S --oort-pears http://127.0.0.1:8080/cometd   # and bin/bayeux-demo --colour
                ```
                and `bin/bayeux-load cometd-server [--port N] [--max-queue N] [--workers N]`.
                """);
        assertEquals(List.of(
                "docs/page.md:2: bin/bayeux-load has no option --bogus",
                "docs/page.md:3: bin/bayeux-load server has no option --no-such-flag",
                "docs/page.md:5: bin/bayeux-demo has no option --colour",
                "docs/page.md:5: bin/bayeux-demo has no option --oort-pears",
                "docs/page.md:7: bin/bayeux-load cometd-server has no option --workers"), problems);
    }

    @Test
    void aCommandInsideAQuotedArgumentIsCheckedToo() {
        List<String> problems = checkText("""
                ```sh
                bin/bayeux-load compare --a 'bin/bayeux-load server --port $PORT' \\
                                        --b 'bin/bayeux-load server --port $PORT --gather 0' --rounds 2
                ```
                """);
        assertEquals(List.of("docs/page.md:3: bin/bayeux-load server has no option --gather"), problems);
    }

    @Test
    void aMissingScriptSubCommandOrModuleIsReported() {
        List<String> problems = checkText("""
                ```
                bin/bayeux-run --port 1
                bin/bayeux-load serve --port 1
                mvn -o -q -pl load-tool,no-such-module -am verify
                ```
                ```java
                String notACommand = "bin/not-checked --in-java";
                ```
                """);
        assertEquals(List.of(
                "docs/page.md:2: no such script: bin/bayeux-run",
                "docs/page.md:3: no such command: bin/bayeux-load serve",
                "docs/page.md:4: no such module: no-such-module"), problems);
    }

    @Test
    void headingsTakeGitHubsSlugs() {
        assertEquals("who-is-connecting-bayeuxcontext", DocsCheck.slug("Who is connecting: `BayeuxContext`"));
        assertEquals("benchmarks-jmh", DocsCheck.slug("Benchmarks (JMH)"));
        assertEquals("delivery-and-back-pressure", DocsCheck.slug("Delivery and back-pressure"));
        assertEquals("the-replay-dialect", DocsCheck.slug("The `replay` dialect"));
    }

    private static List<String> checkText(String text) {
        return check.check(root.resolve("docs/page.md"), text);
    }
}

package io.bayeux.transport.internal.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Static files from directories or the class path, tried in order. Paths are normalized and
 * never leave their root. Reads block: call from the application executor, not an event loop.
 */
public final class StaticResources {
    private static final Map<String, String> CONTENT_TYPES = Map.ofEntries(
            Map.entry("html", "text/html;charset=UTF-8"),
            Map.entry("htm", "text/html;charset=UTF-8"),
            Map.entry("js", "text/javascript;charset=UTF-8"),
            Map.entry("mjs", "text/javascript;charset=UTF-8"),
            Map.entry("css", "text/css;charset=UTF-8"),
            Map.entry("json", "application/json;charset=UTF-8"),
            Map.entry("map", "application/json;charset=UTF-8"),
            Map.entry("txt", "text/plain;charset=UTF-8"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("wasm", "application/wasm"),
            Map.entry("ts", "text/plain;charset=UTF-8"));

    private final List<String> roots;

    public StaticResources(List<String> roots) {
        this.roots = List.copyOf(roots);
    }

    public boolean isEmpty() {
        return roots.isEmpty();
    }

    /** A file found: its bytes, content type and a validator for caching. */
    public record Resource(byte[] content, String contentType, String etag) {
    }

    /** The resource at the request path, or null. {@code /} and directories mean {@code index.html}. */
    public Resource find(String requestPath) throws IOException {
        String relative = normalize(requestPath);
        if (relative == null) {
            return null;
        }
        for (String root : roots) {
            byte[] content = root.startsWith("classpath:") ? fromClassPath(root.substring("classpath:".length()), relative)
                    : fromDirectory(Path.of(root), relative);
            if (content != null) {
                return new Resource(content, contentType(relative), etag(content));
            }
        }
        return null;
    }

    /** The path relative to a root, without leading slash, or null when it tries to escape. */
    static String normalize(String requestPath) {
        String path = requestPath.isEmpty() || requestPath.endsWith("/") ? requestPath + "index.html" : requestPath;
        StringBuilder out = new StringBuilder();
        for (String segment : path.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..") || segment.contains("\\") || segment.indexOf('\0') >= 0) {
                return null;
            }
            if (!out.isEmpty()) {
                out.append('/');
            }
            out.append(segment);
        }
        return out.isEmpty() ? "index.html" : out.toString();
    }

    private static byte[] fromDirectory(Path root, String relative) throws IOException {
        Path base = root.toAbsolutePath().normalize();
        Path file = base.resolve(relative).normalize();
        if (!file.startsWith(base)) {
            return null;
        }
        if (Files.isDirectory(file)) {
            file = file.resolve("index.html");
        }
        return Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
    }

    private static byte[] fromClassPath(String root, String relative) throws IOException {
        String prefix = root.startsWith("/") ? root.substring(1) : root;
        String name = prefix.isEmpty() ? relative : prefix.endsWith("/") ? prefix + relative : prefix + "/" + relative;
        URL url = StaticResources.class.getClassLoader().getResource(name);
        if (url == null || url.getPath().endsWith("/")) {
            return null;
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        } catch (IOException x) {
            // A class path directory cannot be read as a stream.
            return null;
        }
    }

    static String contentType(String path) {
        int dot = path.lastIndexOf('.');
        String extension = dot < 0 ? "" : path.substring(dot + 1).toLowerCase(Locale.ROOT);
        return CONTENT_TYPES.getOrDefault(extension, "application/octet-stream");
    }

    private static String etag(byte[] content) {
        CRC32 crc = new CRC32();
        crc.update(content);
        return "\"" + Integer.toHexString(content.length) + "-" + HexFormat.of().toHexDigits((int) crc.getValue()) + "\"";
    }
}

package io.bayeux.transport.internal.http;

import io.netty.handler.codec.http.QueryStringDecoder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each long-polling request parses by hand (no regular expression, no split, no decoder)
 * reads exactly what the regular expressions, splits and decoders it replaced read.
 */
class RequestParsingTest {
    private static final String[] MEDIA_TYPES = {"application/json", "text/json", "text/plain", "application/x-www-form-urlencoded"};

    @Test
    void contentTypesAreReadAsBefore() {
        List<String> samples = List.of("application/json", "application/json;charset=UTF-8", "Application/JSON; Charset=\"utf-8\"",
                " text/plain ;charset=utf8", "text/json;charset=ISO-8859-1", "application/json;charset=", "charset=utf-8",
                "application/json; foo=bar; charset = utf-8", "application/json;;charset=\"UTF\"-8\"", "", ";", "text/html",
                "application/x-www-form-urlencoded; charset=UTF-8", "application/json;charset=utf-16", "application/json;CHARSET=Utf8 ");
        for (String contentType : samples) {
            assertSameAsBefore(contentType);
        }
        assertTrue(MediaTypes.isUtf8OrNoCharset("application/json;charset=UTF-8"));
        assertFalse(MediaTypes.isUtf8OrNoCharset("application/json;charset=latin1"));
        assertEquals("latin1", MediaTypes.charset("application/json; charset=\"Latin1\""));
        assertNull(MediaTypes.charset("application/json"));
    }

    @Test
    void randomContentTypesAreReadAsBefore() {
        String[] parts = {"application/json", "text/plain", "Text/JSON", ";", " ", "\t", "charset=", "CharSet=", "utf-8", "UTF8",
            "\"", "latin1", "=", "x", "utf-16", "é", "İ"};
        Random random = new Random(7);
        for (int n = 0; n < 50_000; n++) {
            StringBuilder contentType = new StringBuilder();
            int count = random.nextInt(8);
            for (int i = 0; i < count; i++) {
                contentType.append(parts[random.nextInt(parts.length)]);
            }
            assertSameAsBefore(contentType.toString());
        }
    }

    @Test
    void pathsAreDecodedAsQueryStringDecoderDecodesThem() {
        List<String> uris = List.of("/cometd", "/cometd?x=1", "/cometd#f", "/cometd/handshake?jsonp=cb&message=%5B%5D", "/",
                "", "?", "#", "/a%20b?c", "/a+b", "/a%2Fb", "/caf%C3%A9", "/x?y%20z", "/%", "/%zz", "/a;b=c?d");
        for (String uri : uris) {
            String expected;
            try {
                expected = new QueryStringDecoder(uri).path();
            } catch (IllegalArgumentException x) {
                // A bad escape: the hand path hands such URIs to the decoder, which throws as before.
                assertThrowsSame(uri, x);
                continue;
            }
            assertEquals(expected, HttpRequestHandler.path(uri), uri);
        }
    }

    @Test
    void callbackNamesAreCheckedAsTheRegularExpressionChecked() {
        List<String> names = List.of("cb", "jsonpcallback", "$", "_a.b$1", "1cb", ".cb", "", "a-b", "a b", "é", "a".repeat(64),
                "a".repeat(65), "window.callbacks.c42", "cb()", "A0");
        for (String name : names) {
            assertEquals(name.matches("[A-Za-z_$][A-Za-z0-9_$.]{0,63}"), CallbackPolling.isCallbackName(name), name);
        }
    }

    private static void assertThrowsSame(String uri, IllegalArgumentException expected) {
        try {
            HttpRequestHandler.path(uri);
        } catch (IllegalArgumentException x) {
            assertEquals(expected.getMessage(), x.getMessage(), uri);
            return;
        }
        throw new AssertionError("no exception for " + uri);
    }

    private static void assertSameAsBefore(String contentType) {
        String charset = charsetBefore(contentType);
        boolean acceptedBefore = charset == null || charset.equals("utf-8") || charset.equals("utf8");
        assertEquals(acceptedBefore, MediaTypes.isUtf8OrNoCharset(contentType), contentType);
        assertEquals(charset, MediaTypes.charset(contentType), contentType);
        String mediaType = mediaTypeBefore(contentType);
        for (String expected : MEDIA_TYPES) {
            assertEquals(mediaType.equals(expected), MediaTypes.isMediaType(contentType, expected), contentType);
        }
    }

    /** The media type as the handler read it before. */
    private static String mediaTypeBefore(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    /** The charset as the handler read it before. */
    private static String charsetBefore(String contentType) {
        for (String part : contentType.split(";")) {
            String trimmed = part.trim();
            if (trimmed.regionMatches(true, 0, "charset=", 0, 8)) {
                return trimmed.substring(8).replace("\"", "").trim().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }
}

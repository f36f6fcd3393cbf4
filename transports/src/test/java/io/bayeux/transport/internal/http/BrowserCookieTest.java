package io.bayeux.transport.internal.http;

import io.bayeux.transport.SameSite;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The browser cookie is read without decoding every cookie, and reads exactly what Netty's LAX decoder reads. */
class BrowserCookieTest {
    private static final String ID = "0123456789abcdef0123456789abcdef";
    private static final Pattern VALUE = Pattern.compile("[0-9a-f]{16,64}");
    private final BrowserCookie cookie = new BrowserCookie("BAYEUX_BROWSER", SameSite.LAX);

    @Test
    void readsTheIdAmongOtherCookiesAndNothingWithoutIt() {
        assertEquals(ID, cookie.read(headers("a=1; BAYEUX_BROWSER=" + ID + "; b=2")));
        assertEquals(ID, cookie.read(headers("BAYEUX_BROWSER=\"" + ID + "\"")));
        assertEquals(ID, cookie.read(headers("other=x", "BAYEUX_BROWSER=" + ID)));
        assertNull(cookie.read(headers()));
        assertNull(cookie.read(headers("a=1; b=2")));
        assertNull(cookie.read(headers("BAYEUX_BROWSER=" + ID.toUpperCase())), "not an id this server makes");
        assertNull(cookie.read(headers("BAYEUX_BROWSER=abc")), "too short");
        assertNull(cookie.read(headers("XBAYEUX_BROWSER=" + ID)));
    }

    @Test
    void readsWhatNettysLaxDecoderReadsOnTrickyHeaders() {
        List<String> tricky = List.of("", ";", "BAYEUX_BROWSER", "BAYEUX_BROWSER=", "BAYEUX_BROWSER=;", "BAYEUX_BROWSER=" + ID + " ",
                " BAYEUX_BROWSER=" + ID, "BAYEUX_BROWSER =" + ID, "BAYEUX_BROWSER=\"" + ID, "BAYEUX_BROWSER=\"\"",
                "BAYEUX_BROWSER=\"" + ID + "; BAYEUX_BROWSER=" + ID, "BAYEUX_BROWSER=bad; BAYEUX_BROWSER=" + ID,
                "BAYEUX_BROWSER=" + ID + "; BAYEUX_BROWSER=bad", "$Version=1; BAYEUX_BROWSER=" + ID + "; $Path=/",
                "$Version=1; $Path=/; BAYEUX_BROWSER=" + ID, "$version=1", "$Version=1", "a=1, BAYEUX_BROWSER=" + ID,
                "BAYEUX_BROWSER;BAYEUX_BROWSER=" + ID, "a=\"x;y\"; BAYEUX_BROWSER=" + ID, "BAYEUX_BROWSER=" + ID + ID + ID,
                "\tBAYEUX_BROWSER=" + ID + ";\r\n", "BAYEUX_BROWSER=" + ID + "=x", "=x; BAYEUX_BROWSER=" + ID);
        for (String header : tricky) {
            assertEquals(reference(header), cookie.read(headers(header)), header);
        }
    }

    @Test
    void readsWhatNettysLaxDecoderReadsOnRandomHeaders() {
        String[] parts = {"BAYEUX_BROWSER", "=", ";", " ", ",", "\"", ID, "abc", "$Version", "$Path", "x", "\t", "BAYEUX_BROWSER=" + ID,
            "\u0001", "BAYEUX_BROWSER =", "\u0001BAYEUX_BROWSER\u0002=" + ID};
        Random random = new Random(42);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder header = new StringBuilder();
            int count = random.nextInt(10);
            for (int i = 0; i < count; i++) {
                header.append(parts[random.nextInt(parts.length)]);
            }
            String expected;
            try {
                expected = reference(header.toString());
            } catch (IllegalArgumentException blankName) {
                continue;
            }
            assertEquals(expected, cookie.read(headers(header.toString())), header.toString());
        }
    }

    /**
     * What the server read before: every cookie decoded by Netty, the first of the name with a valid id. Netty
     * throws on a cookie whose name is blank once trimmed (control characters only), so the server dropped such a
     * request, where it now reads on; those headers are left out of the comparison.
     */
    private static String reference(String... values) {
        for (String header : values) {
            for (Cookie c : ServerCookieDecoder.LAX.decode(header)) {
                if ("BAYEUX_BROWSER".equals(c.name()) && VALUE.matcher(c.value()).matches()) {
                    return c.value();
                }
            }
        }
        return null;
    }

    private static HttpHeaders headers(String... cookies) {
        // Not validated: the parser is compared with Netty's decoder on any text.
        HttpHeaders headers = DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
        for (String value : cookies) {
            headers.add(HttpHeaderNames.COOKIE, value);
        }
        return headers;
    }
}

package io.bayeux.load;

import java.util.Random;

/**
 * The chat text of the benchmark's messages: words of English picked at random, so that a
 * message compresses as people's chat does (permessage-deflate gains what it would on real
 * traffic, neither the nothing of random bytes nor the everything of one repeated letter).
 *
 * <p>Stateless; thread-safe (each caller brings its own {@link Random}).
 */
final class ChatText {
    private static final String[] WORDS = (
            "the of and to a in is it you that he was for on are with as I his they be at one have this from "
            + "or had by hot word but what some we can out other were all there when up use your how said an "
            + "each she which do their time if will way about many then them write would like so these her long "
            + "make thing see him two has look more day could go come did number sound no most people my over "
            + "know water than call first who may down side been now find any new work part take get place made "
            + "live where after back little only round man year came show every good me give our under name very "
            + "through just form sentence great think say help low line differ turn cause much mean before move "
            + "right boy old too same tell does set three want air well also play small end put home read hand "
            + "port large spell add even land here must big high such follow act why ask men change went light "
            + "kind off need house picture try us again animal point mother world near build self earth father "
            + "lunch meeting tomorrow tonight thanks sure okay great idea sounds perfect later today deploy fixed "
            + "review merged ticket release coffee weekend").split(" ");

    private ChatText() {
    }

    /** Words picked by {@code random}, separated by spaces, {@code length} characters in all. */
    static String of(int length, Random random) {
        StringBuilder text = new StringBuilder(length + 16);
        while (text.length() < length) {
            if (!text.isEmpty()) {
                text.append(' ');
            }
            text.append(WORDS[random.nextInt(WORDS.length)]);
        }
        text.setLength(length);
        return text.toString();
    }
}

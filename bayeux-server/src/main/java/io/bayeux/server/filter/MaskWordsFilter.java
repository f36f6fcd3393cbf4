package io.bayeux.server.filter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks listed words in every string of the data with asterisks, one per character of the
 * masked text: with the word {@code darn}, {@code "Darn it"} becomes {@code "**** it"}.
 *
 * <p>Matching ignores case (Unicode-aware) and only masks whole words: a match must not be
 * preceded or followed by a letter, digit or underscore, so {@code darn} leaves
 * {@code darned} alone. Words may contain spaces or punctuation ({@code "c++"}); the longest
 * listed word wins where several match at the same place. Map keys are not masked.
 *
 * <p>Immutable and thread-safe.
 */
public class MaskWordsFilter extends JsonDataFilter {
    private static final String WORD_CHAR = "[\\p{L}\\p{N}_]";

    private final List<String> words;
    private final Pattern pattern;

    /**
     * @param words the words to mask
     * @throws IllegalArgumentException when no word is given, or one is null, empty or blank
     */
    public MaskWordsFilter(String... words) {
        this(Arrays.asList(Objects.requireNonNull(words, "words")));
    }

    /**
     * @param words the words to mask
     * @throws IllegalArgumentException when no word is given, or one is null, empty or blank
     */
    public MaskWordsFilter(List<String> words) {
        Objects.requireNonNull(words, "words");
        if (words.isEmpty()) {
            throw new IllegalArgumentException("No word to mask: " + words);
        }
        List<String> sorted = new ArrayList<>(words.size());
        for (String word : words) {
            if (word == null || word.isBlank()) {
                throw new IllegalArgumentException("Invalid word to mask: " + (word == null ? "null" : "'" + word + "'"));
            }
            sorted.add(word);
        }
        this.words = List.copyOf(sorted);
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        StringBuilder regex = new StringBuilder("(?<!").append(WORD_CHAR).append(")(?:");
        for (int i = 0; i < sorted.size(); i++) {
            regex.append(i == 0 ? "" : "|").append(Pattern.quote(sorted.get(i)));
        }
        regex.append(")(?!").append(WORD_CHAR).append(')');
        this.pattern = Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    }

    /** The words masked, as given. */
    public List<String> getWords() {
        return words;
    }

    @Override
    protected Object filterString(String string) {
        return mask(string);
    }

    /** Masks the listed words in {@code text}; returns {@code text} itself when none occurs. */
    public String mask(String text) {
        Matcher matcher = pattern.matcher(text);
        if (!matcher.find()) {
            return text;
        }
        StringBuilder builder = new StringBuilder(text.length());
        int last = 0;
        do {
            builder.append(text, last, matcher.start());
            int stars = text.codePointCount(matcher.start(), matcher.end());
            builder.repeat('*', stars);
            last = matcher.end();
        } while (matcher.find());
        return builder.append(text, last, text.length()).toString();
    }

    @Override
    public String toString() {
        return "MaskWordsFilter" + words;
    }
}

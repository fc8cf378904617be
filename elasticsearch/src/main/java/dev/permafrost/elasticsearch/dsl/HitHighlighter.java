/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import java.io.IOException;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.highlight.SimpleHTMLEncoder;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageFormatter;
import org.apache.lucene.search.uhighlight.SplittingBreakIterator;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.search.uhighlight.WholeBreakIterator;

/**
 * A hit's {@code highlight} section, as the node's unified highlighter writes it: for each text or keyword field a
 * {@link HighlightSpec} entry names (other kinds are never highlighted), the field's values read from the hit's
 * {@code _source} (a multi-field's from its parent's; for a synthetic source, the rebuilt one), analyzed as the index
 * analyzes them, and matched against the search's query (or the entry's {@code highlight_query}): the fragments holding
 * matches ({@link BoundedSentenceBreakIterator}; with {@code number_of_fragments: 0} each matching value whole), each
 * match between the tags (a phrase's words as one, cut where the fragment ends), trimmed, at most {@code number_of_fragments} of the best, in the
 * order they appear (or by score). A field with no match is left out. Lucene's {@link UnifiedHighlighter}, which the
 * node's builds on, finds and scores the passages.
 */
final class HitHighlighter {
  /** What Lucene's highlighter joins a field's values with (its multi-value separator). */
  private static final char VALUE_SEPARATOR = Separator.CHAR;
  private static final Analyzer KEYWORD = new KeywordAnalyzer();

  private HitHighlighter() {}

  /** Exposes the highlighter's multi-value separator. */
  private abstract static class Separator extends UnifiedHighlighter {
    static final char CHAR = MULTIVAL_SEP_CHAR;

    private Separator() {
      super(null, null);
    }
  }

  /**
   * The hit's fragments by field, in the order the entries and the mapping give the fields; empty if none matched.
   *
   * @param query the search's query over the hit's index
   * @param highlightQuery builds an entry's {@code highlight_query} over the hit's index
   */
  static Map<String, List<String>> of(HighlightSpec spec, IndexMapping mapping, ObjectNode source, Query query,
      Function<QueryNode, Query> highlightQuery) throws IOException {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (source == null) {
      return out;
    }
    for (HighlightSpec.Field entry : spec.fields()) {
      for (IndexMapping.Field f : mapping.fields().values()) {
        if (out.containsKey(f.path()) || !highlighted(f.kind()) || !entry.matches(f.path())) {
          continue;
        }
        List<JsonNode> raw = new ArrayList<>();
        HitFields.collect(source, HitFields.sourcePath(mapping, f), raw);
        List<String> values = new ArrayList<>(raw.size());
        for (JsonNode v : raw) {
          values.add(v.asText());
        }
        Query q = entry.highlightQuery() != null ? highlightQuery.apply(entry.highlightQuery()) : query;
        List<String> fragments = fragments(entry, f, values, q);
        if (!fragments.isEmpty()) {
          out.put(f.path(), fragments);
        }
      }
    }
    return out;
  }

  /** The kinds the unified highlighter highlights. */
  private static boolean highlighted(FieldKind kind) {
    return kind == FieldKind.TEXT || kind == FieldKind.MATCH_ONLY_TEXT || kind == FieldKind.KEYWORD;
  }

  /** The fragments of {@code values} of field {@code f} matching {@code query}, as the node writes them. */
  static List<String> fragments(HighlightSpec.Field entry, IndexMapping.Field f, List<String> values, Query query)
      throws IOException {
    if (values.isEmpty() || values.stream().allMatch(String::isEmpty)) {
      return List.of();
    }
    Analyzer analyzer = f.kind().isText() ? MappedQueryParser.analyzer(f.analyzer()) : KEYWORD;
    if (analyzer == null) {
      throw DslException.illegalArgument("[highlight] field [" + f.path() + "] is analyzed with [" + f.analyzer()
          + "], which is not one of the built-in analyzers Permafrost knows (standard, simple, whitespace, keyword,"
          + " stop)");
    }
    int numberOfFragments = entry.numberOfFragments();
    int fragmentSize = entry.fragmentSize();
    UnifiedHighlighter highlighter = UnifiedHighlighter.builderWithoutSearcher(analyzer)
        .withBreakIterator(() -> new SplittingBreakIterator(breaks(numberOfFragments, fragmentSize), VALUE_SEPARATOR))
        .withFieldMatcher(entry.requireFieldMatch() ? f.path()::equals : name -> true)
        // as the node: a phrase is one highlight where only the field's own clauses count, its words apart otherwise
        .withWeightMatches(entry.requireFieldMatch())
        .withFormatter(new Fragments(entry))
        .withMaxNoHighlightPassages(0)
        .withMaxLength(Integer.MAX_VALUE - 1)
        .withPassageSortComparator(entry.byScore()
            ? Comparator.comparingDouble(Passage::getScore).reversed().thenComparingInt(Passage::getStartOffset)
            : Comparator.comparingInt(Passage::getStartOffset))
        .build();
    String content = String.join(String.valueOf(VALUE_SEPARATOR), values);
    Object formatted = highlighter.highlightWithoutSearcher(f.path(), MappedQueryParser.indexedForm(query), content,
        numberOfFragments == 0 ? Integer.MAX_VALUE - 1 : numberOfFragments); // - 1: Lucene sizes a queue by it + 1
    return formatted == null ? List.of() : Arrays.asList((String[]) formatted);
  }

  private static BreakIterator breaks(int numberOfFragments, int fragmentSize) {
    if (numberOfFragments == 0) {
      return new WholeBreakIterator();
    }
    if (fragmentSize == 0) {
      return BreakIterator.getSentenceInstance(java.util.Locale.ROOT);
    }
    return new BoundedSentenceBreakIterator(fragmentSize);
  }

  /** Writes each passage as a fragment: the matches between the tags (overlapping ones as one), trimmed. */
  private static final class Fragments extends PassageFormatter {
    private final HighlightSpec.Field entry;

    Fragments(HighlightSpec.Field entry) {
      this.entry = Objects.requireNonNull(entry);
    }

    @Override
    public Object format(Passage[] passages, String content) {
      List<String> out = new ArrayList<>(passages.length);
      for (Passage passage : passages) {
        StringBuilder sb = new StringBuilder();
        int pos = passage.getStartOffset();
        int n = passage.getNumMatches();
        int[] starts = passage.getMatchStarts();
        int[] ends = passage.getMatchEnds();
        for (int i = 0; i < n; i++) {
          int start = Math.max(starts[i], pos);
          int end = ends[i];
          while (i + 1 < n && starts[i + 1] < end) { // overlapping matches: one highlight
            end = Math.max(end, ends[++i]);
          }
          // a match the fragment's end cuts (a phrase across the boundary) is highlighted up to it, as the node does:
          // "<b>user login</b> failed <b>user</b>" of "user login failed user login ..." with fragment_size 18
          end = Math.min(end, passage.getEndOffset());
          if (end <= pos) {
            continue;
          }
          append(sb, content, pos, start);
          sb.append(entry.preTag());
          append(sb, content, start, end);
          sb.append(entry.postTag());
          pos = end;
        }
        append(sb, content, pos, Math.max(pos, passage.getEndOffset()));
        String fragment = sb.toString().replace(VALUE_SEPARATOR, ' ').trim();
        if (!fragment.isEmpty()) {
          out.add(fragment);
        }
      }
      return out.toArray(String[]::new);
    }

    private void append(StringBuilder sb, String content, int from, int to) {
      String text = content.substring(from, to);
      sb.append(entry.html() ? SimpleHTMLEncoder.htmlEncode(text) : text);
    }
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.permafrost.elasticsearch.dsl.AggPartial.Bucket;
import dev.permafrost.elasticsearch.dsl.AggPartial.DoubleTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.LongTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.Stats;
import dev.permafrost.elasticsearch.dsl.AggPartial.StringTerms;
import dev.permafrost.elasticsearch.dsl.AggPartial.TermCounts;
import dev.permafrost.elasticsearch.dsl.Aggregator.Encoding;
import dev.permafrost.elasticsearch.dsl.Aggregator.FieldValues;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.lucene.util.BytesRef;

/** {@code terms} over a keyword, numeric or date field. */
final class TermsSpec extends AggSpec {
  /** One criterion of a terms order: {@code _count}, {@code _key}, or a sub-aggregation's metric. */
  record TermsOrder(String by, boolean asc, int sub, String stat) {}

  final Source source;
  final int size;
  final long minDocCount;
  final List<TermsOrder> order;
  final boolean hasMissing;
  final long missing;
  final BytesRef missingTerm;
  final String format;

  TermsSpec(String name, AggSpec[] subs, JsonNode meta, Source source, int size, long minDocCount,
      List<TermsOrder> order, boolean hasMissing, long missing, BytesRef missingTerm, String format) {
    super(name, subs, meta);
    this.source = source;
    this.size = size;
    this.minDocCount = minDocCount;
    this.order = order;
    this.hasMissing = hasMissing;
    this.missing = missing;
    this.missingTerm = missingTerm;
    this.format = format;
  }

  @Override
  String typeKey() {
    return switch (source.encoding()) {
      case ORDINALS -> "sterms";
      case LONG -> "lterms";
      default -> "dterms";
    };
  }

  @Override
  boolean showsUnmatched() {
    return minDocCount == 0 || super.showsUnmatched();
  }

  @Override
  Aggregator create(boolean topLevel) {
    FieldValues values = source.values(hasMissing, missing);
    return source.encoding() == Encoding.ORDINALS
        ? new KeywordTermsAggregator(values, missingTerm, topLevel, minDocCount == 0, createSubs())
        : NumericTermsAggregator.of(values, minDocCount == 0, createSubs());
  }

  @Override
  void fields(Set<String> out) {
    if (source.field() != null) {
      out.add(source.field());
    }
    subFields(out);
  }

  private <K extends Comparable<K>> Comparator<Map.Entry<K, Bucket>> comparator() {
    Comparator<Map.Entry<K, Bucket>> c = null;
    for (TermsOrder o : order) {
      Comparator<Map.Entry<K, Bucket>> next = switch (o.by()) {
        case "_count" -> Comparator.comparingLong(e -> e.getValue().docCount);
        case "_key" -> Map.Entry.comparingByKey();
        default -> Comparator.comparingDouble(
            e -> MetricSpec.value((Stats) e.getValue().subs[o.sub()], o.stat()));
      };
      if (!o.asc()) {
        next = next.reversed();
      }
      c = c == null ? next : c.thenComparing(next);
    }
    Comparator<Map.Entry<K, Bucket>> byKey = Map.Entry.comparingByKey();
    return c == null ? byKey : c.thenComparing(byKey);
  }

  /** A term and its count over every segment. */
  private record Counted(BytesRef term, long count) {}

  /** One segment's run of terms (in term order) and counts, at its current term. */
  private static final class Run implements Comparable<Run> {
    final BytesRef[] terms;
    final long[] counts;
    int at;

    Run(BytesRef[] terms, long[] counts) {
      this.terms = terms;
      this.counts = counts;
    }

    BytesRef term() {
      return terms[at];
    }

    @Override
    public int compareTo(Run other) {
      return terms[at].compareTo(other.terms[other.at]);
    }
  }

  /**
   * The counted terms' buckets: the segments' runs merged term by term (each in term order), the best {@code size}
   * kept in a bounded queue as they come and only those made strings, the others summed into
   * {@code sum_other_doc_count}.
   */
  private ObjectNode renderCounts(TermCounts counts) {
    Comparator<Counted> better = (a, b) -> {
      for (TermsOrder o : order) {
        int c = o.by().equals("_count") ? Long.compare(a.count(), b.count()) : a.term().compareTo(b.term());
        if (c != 0) {
          return o.asc() ? c : -c;
        }
      }
      return a.term().compareTo(b.term());
    };
    PriorityQueue<Counted> best = new PriorityQueue<>(Math.max(1, size), better.reversed()); // the worst on top
    boolean byCountDescending = !order.isEmpty() && order.getFirst().by().equals("_count") && !order.getFirst().asc();
    // each run at its current term, the smallest first
    PriorityQueue<Run> runs = new PriorityQueue<>(Math.max(1, counts.terms.size()));
    for (int r = 0; r < counts.terms.size(); r++) {
      runs.add(new Run(counts.terms.get(r), counts.counts.get(r)));
    }
    long total = 0;
    while (!runs.isEmpty()) {
      Run run = runs.poll();
      BytesRef term = run.term();
      long count = 0;
      for (;;) {
        count += run.counts[run.at];
        if (++run.at < run.terms.length) {
          runs.add(run);
        }
        if (runs.isEmpty() || !runs.peek().term().bytesEquals(term)) {
          break;
        }
        run = runs.poll();
      }
      if (count < minDocCount) {
        continue;
      }
      total += count;
      if (best.size() < size) {
        best.add(new Counted(term, count));
      } else if (!(byCountDescending && count < best.peek().count())) { // most terms cannot enter: no object made
        Counted c = new Counted(term, count);
        if (better.compare(c, best.peek()) < 0) {
          best.poll();
          best.add(c);
        }
      }
    }
    List<Counted> shown = new ArrayList<>(best);
    shown.sort(better);
    long inBuckets = 0;
    ObjectNode out = body();
    out.put("doc_count_error_upper_bound", 0);
    ArrayNode array = JSON.arrayNode();
    for (Counted c : shown) {
      ObjectNode b = array.addObject();
      b.put("key", c.term().utf8ToString());
      b.put("doc_count", c.count());
      inBuckets += c.count();
    }
    out.put("sum_other_doc_count", total - inBuckets);
    out.set("buckets", array);
    return out;
  }

  @Override
  ObjectNode render(AggPartial<?> partial, boolean typedKeys) {
    return switch (partial) {
      case null -> renderBuckets(Map.<String, Bucket>of(), (b, key) -> { }, typedKeys);
      case TermCounts counts -> renderCounts(counts);
      case StringTerms terms -> renderBuckets(terms.map, (b, key) -> b.put("key", key), typedKeys);
      case DoubleTerms terms -> renderBuckets(terms.map, (b, key) -> b.put("key", key), typedKeys);
      case LongTerms terms -> renderBuckets(terms.map, (b, key) -> {
        b.put("key", key);
        if (source.date()) {
          b.put("key_as_string", DateFormats.format(key, format, ZoneId.of("Z")));
        } else if (Source.BOOLEAN_FORMAT.equals(format)) {
          b.put("key_as_string", key != 0 ? "true" : "false");
        }
      }, typedKeys);
      default -> throw new AssertionError("not a terms partial: " + partial);
    };
  }

  private <K extends Comparable<K>> ObjectNode renderBuckets(Map<K, Bucket> map, BiConsumer<ObjectNode, K> putKey,
      boolean typedKeys) {
    List<Map.Entry<K, Bucket>> buckets = new ArrayList<>();
    for (Map.Entry<K, Bucket> e : map.entrySet()) {
      if (e.getValue().docCount >= minDocCount) {
        buckets.add(e);
      }
    }
    buckets.sort(comparator());
    long other = 0;
    for (int i = size; i < buckets.size(); i++) {
      other += buckets.get(i).getValue().docCount;
    }
    ObjectNode out = body();
    out.put("doc_count_error_upper_bound", 0);
    out.put("sum_other_doc_count", other);
    ArrayNode array = out.putArray("buckets");
    for (int i = 0; i < Math.min(size, buckets.size()); i++) {
      Map.Entry<K, Bucket> e = buckets.get(i);
      ObjectNode b = array.addObject();
      putKey.accept(b, e.getKey());
      renderBucket(b, e.getValue(), typedKeys);
    }
    return out;
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.permafrost.elasticsearch.FieldKind;
import dev.permafrost.elasticsearch.IndexMapping;
import dev.permafrost.elasticsearch.MappedQueryParser;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.SortedSetSortField;
import org.apache.lucene.util.BytesRef;

/**
 * A search's sort: the Lucene sort (null for by score), and per sort field what it is, to show sort values and read
 * {@code search_after} as Elasticsearch does. Parsed from the body's {@code sort} or the URL's {@code sort=f:order}.
 *
 * @param fieldFirst whether the sort as given names a field or {@code _doc} first, not the score (a field it drops as
 *     unmapped too, whatever follows): what the node's pre-filter ({@link PreFilter}) asks
 * @param shapes per sort field, how its values are shown and read back ({@code format}, {@code numeric_type})
 */
record SortSpec(Sort lucene, List<SortField> fields, boolean fieldFirst, List<SortValueShape> shapes) {
  /** A number as {@code search_after} may give one in a string (a double shown for a missing value: Infinity). */
  private static final Pattern NUMBER = Pattern.compile("-?(\\d+(\\.\\d*)?([eE][-+]?\\d+)?|Infinity)");

  /** By score: no sort given. */
  static final SortSpec BY_SCORE = new SortSpec(null, List.of(), false, List.of());

  SortSpec {
    assert shapes.size() == fields.size() : shapes + " for " + fields;
  }

  /** Sort value {@code i} of a hit ({@code raw}, as the search gave it) as the node shows it. */
  Object shown(int i, Object raw) {
    return i < shapes.size() ? shapes.get(i).shown(raw) : raw; // past the fields: the cursor's tie-breaker
  }

  boolean byField() {
    return lucene != null && fields.stream().anyMatch(f -> f.getType() != SortField.Type.SCORE);
  }

  /** Where the score is among the sort values, or -1 if the sort has none (or the search is by score). */
  int scoreAt() {
    for (int i = 0; lucene != null && i < fields.size(); i++) {
      if (fields.get(i).getType() == SortField.Type.SCORE) {
        return i;
      }
    }
    return -1;
  }

  /** The URL's {@code sort=field:order,...} as the body's form. */
  static JsonNode parameter(String sort) {
    if (sort == null) {
      return null;
    }
    ArrayNode specs = JsonNodeFactory.instance.arrayNode();
    for (String part : sort.split(",")) {
      int colon = part.lastIndexOf(':');
      if (colon > 0) {
        specs.addObject().put(part.substring(0, colon), part.substring(colon + 1));
      } else {
        specs.add(part);
      }
    }
    return specs;
  }

  /** The body's {@code sort} over the indices' union {@code mapping}; each refusal names the field. */
  static SortSpec parse(JsonNode spec, IndexMapping mapping, List<IndexShards> chosen) {
    if (spec == null || spec.isNull()) {
      return BY_SCORE;
    }
    MappedQueryParser parser = new MappedQueryParser(mapping);
    List<SortField> fields = new ArrayList<>();
    List<SortValueShape> shapes = new ArrayList<>();
    Boolean fieldFirst = null;
    for (JsonNode entry : spec.isArray() ? spec : List.of(spec)) {
      String field;
      String order = null;
      String missing = null;
      String format = null;
      String numericType = null;
      if (entry.isTextual()) {
        field = entry.textValue();
      } else if (entry.isObject() && entry.size() == 1) {
        Map.Entry<String, JsonNode> e = entry.properties().iterator().next();
        field = e.getKey();
        JsonNode options = e.getValue();
        if (options.isTextual()) {
          order = options.textValue();
        } else if (options.isObject()) {
          for (Map.Entry<String, JsonNode> o : options.properties()) {
            switch (o.getKey()) {
              case "order" -> order = o.getValue().asText();
              case "missing" -> missing = o.getValue().asText();
              case "format" -> format = o.getValue().asText();
              case "numeric_type" -> numericType = o.getValue().asText();
              case "unmapped_type" -> { }
              default -> throw DslException.parsing("[sort] option [" + o.getKey() + "] of [" + field + "] is not"
                  + " supported (supported: order, missing, unmapped_type, format, numeric_type)");
            }
          }
        } else {
          throw DslException.parsing("[sort] of [" + field + "] must be an order or an object, got " + options);
        }
      } else {
        throw DslException.parsing("[sort] entries must be a field name or {field: order}, got " + entry);
      }
      fieldFirst = fieldFirst != null ? fieldFirst : !field.equals("_score");
      if (order != null && !order.equals("asc") && !order.equals("desc")) {
        throw DslException.parsing("[sort] order of [" + field + "] must be asc or desc, got [" + order + "]");
      }
      if (field.equals("_score")) {
        fields.add(new SortField(null, SortField.Type.SCORE, "asc".equals(order)));
        shapes.add(SortValueShape.RAW);
      } else if (field.equals("_doc")) {
        fields.add(new SortField(null, SortField.Type.DOC, "desc".equals(order)));
        shapes.add(SortValueShape.RAW);
      } else if (mapping.field(field) == null) {
        if (entry.isObject() && entry.elements().next().has("unmapped_type")) {
          continue; // every document lacks it: it does not order them
        }
        throw new DslException(400, "query_shard_exception", "No mapping found for [" + field + "] in order to sort on");
      } else {
        boolean descending = "desc".equals(order);
        SortField f;
        boolean mixed = mapping.conflicts().containsKey(field);
        if (mixed) {
          refuseIncompatibleSorts(field, descending, chosen);
        }
        SortValueShape shape = SortValueShape.of(mapping.field(field), format, numericType, descending, mixed);
        try {
          f = parser.sortField(field, descending);
        } catch (IllegalArgumentException e) {
          throw DslException.illegalArgument(e.getMessage());
        }
        if ("_first".equals(missing)) {
          first(f, descending);
        } else if (missing != null && !missing.equals("_last")) {
          SortMissing.set(f, mapping.field(field), shape.convertsMissing() ? shape.missingAsHeld(field, missing) : missing);
        }
        fields.add(f);
        shapes.add(shape);
      }
    }
    boolean byScoreAlone = fields.size() == 1 && fields.get(0).getType() == SortField.Type.SCORE
        && !fields.get(0).getReverse(); // as the node: the search by score, its max_score and no sort values
    boolean first = fieldFirst != null && fieldFirst;
    if (fields.isEmpty() || byScoreAlone) {
      return first ? new SortSpec(null, List.of(), true, List.of()) : BY_SCORE;
    }
    return new SortSpec(new Sort(fields.toArray(SortField[]::new)), List.copyOf(fields), first, List.copyOf(shapes));
  }

  /**
   * Refuses a sort on {@code field} where indices map it so that they sort it as different types: a keyword here, a
   * long there, as the node refuses it when it merges their hits; numbers of different types (an integer here, a
   * double there), which a node merges by widening them (9.3.3: an integer and a long as longs, any with a float or a
   * double as doubles) and Permafrost does not, with a refusal of Permafrost's own naming the field and its types.
   */
  private static void refuseIncompatibleSorts(String field, boolean descending, List<IndexShards> chosen) {
    Set<String> types = new LinkedHashSet<>();
    Set<String> mapped = new LinkedHashSet<>();
    for (IndexShards index : chosen) {
      if (index.mapping().field(field) != null) {
        SortField f = new MappedQueryParser(index.mapping()).sortField(field, descending);
        types.add(f instanceof SortedNumericSortField n ? n.getNumericType().name()
            : f instanceof SortedSetSortField ? "STRING" : f.getType().name());
        mapped.add(index.mapping().field(field).type());
      }
    }
    if (types.size() > 1) {
      List<String> list = List.copyOf(types);
      if (!types.contains("STRING")) {
        throw DslException.illegalArgument("[sort] on [" + field + "], mapped as " + mapped + " by the indices"
            + " searched, is not supported by Permafrost: a node merges numbers of different types by widening them"
            + " (to a long, or with a float or a double to a double), which Permafrost does not do");
      }
      throw DslException.reduce("Can't sort on field [" + field + "]; the field has incompatible sort types: ["
          + list.get(0) + "] and [" + list.get(1) + "] across shards!");
    }
  }

  /** Documents without a value first rather than last. */
  private static void first(SortField f, boolean descending) {
    if (f instanceof SortedSetSortField) {
      f.setMissingValue(descending ? SortField.STRING_LAST : SortField.STRING_FIRST);
    } else if (f instanceof SortedNumericSortField n) {
      switch (n.getNumericType()) {
        case LONG -> f.setMissingValue(descending ? Long.MAX_VALUE : Long.MIN_VALUE);
        case INT -> f.setMissingValue(descending ? Integer.MAX_VALUE : Integer.MIN_VALUE);
        case DOUBLE -> f.setMissingValue(descending ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY);
        case FLOAT -> f.setMissingValue(descending ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY);
        default -> { }
      }
    }
  }

  /** {@code search_after}'s values as this sort's fields hold them. */
  Object[] searchAfter(JsonNode values, IndexMapping mapping) {
    if (lucene == null) {
      throw DslException.illegalArgument("[search_after] needs a [sort]");
    }
    if (!values.isArray() || values.size() != fields.size()) {
      throw DslException.illegalArgument("[search_after] has " + (values.isArray() ? values.size() : 1) + " value(s)"
          + " but the sort has " + fields.size() + " field(s): give one value per sort field");
    }
    Object[] after = new Object[values.size()];
    for (int i = 0; i < after.length; i++) {
      JsonNode v = values.get(i);
      SortField f = fields.get(i);
      SortField.Type type = f instanceof SortedNumericSortField n ? n.getNumericType()
          : f instanceof SortedSetSortField ? SortField.Type.STRING : f.getType();
      IndexMapping.Field field = f.getField() == null ? null : mapping.field(f.getField());
      SortValueShape shape = shapes.get(i);
      if (v.isNull() && type != SortField.Type.STRING) {
        throw DslException.illegalArgument("[search_after] value of [" + f.getField() + "] is null: only a keyword"
            + " sort's value may be (a document without one)");
      }
      try {
        if (shape.convertsAfter() && (v.isNumber() || NUMBER.matcher(v.asText()).matches())) {
          after[i] = shape.afterAsHeld(f.getField(), v, type);
          continue;
        }
        after[i] = switch (type) {
          case STRING -> v.isNull() ? null : new BytesRef(v.asText()); // null: no value, as the node prints it
          case LONG -> v.isNumber() ? v.longValue() : field != null && field.isDate() && !isInteger(v.asText())
              ? date(field, shape.format(), v.asText()) : Long.parseLong(v.asText());
          case INT -> v.isNumber() ? v.intValue() : Integer.parseInt(v.asText());
          case DOUBLE -> v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText());
          case FLOAT, SCORE -> v.isNumber() ? v.floatValue() : Float.parseFloat(v.asText());
          case DOC -> v.isNumber() ? v.intValue() : Integer.parseInt(v.asText());
          default -> throw DslException.illegalArgument("[search_after] cannot follow a sort on " + f);
        };
      } catch (NumberFormatException e) {
        throw DslException.illegalArgument("[search_after] value [" + v.asText() + "] does not fit the sort on ["
            + f.getField() + "]");
      }
    }
    return after;
  }

  private static boolean isInteger(String text) {
    return text.matches("-?\\d+");
  }

  /**
   * A date in {@code search_after} as the sort holds it: read in the sort's {@code format} if it has one, else as the
   * query DSL reads a date ({@link QueryTranslator#dateBounds}); in nanoseconds for a {@code date_nanos} field.
   */
  private static long date(IndexMapping.Field field, String format, String text) {
    long millis = format != null ? DateFormats.parse(text, format, ZoneOffset.UTC, false, System::currentTimeMillis)
        : QueryTranslator.dateBounds(System::currentTimeMillis).epochMillis(field, text, false);
    return field.kind() == FieldKind.DATE_NANOS ? Math.multiplyExact(millis, 1_000_000L) : millis;
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code _source} filtering against what an Elasticsearch 9.3.3 node answered for the same documents and options:
 * a {@code *} that does not cross a dot when no exclude has a wildcard, one that does when one has, and an object or
 * array emptied by excludes kept ({@code {}}, {@code []}) or left out as the node keeps or leaves it.
 */
class SourceFilterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DOC = """
      {"customer": {"name": "a", "id": 1, "addr": {"city": "x", "zip": "y"}}, "name": "top", "xname": "x",
       "tags": [{"name": "t1", "v": 1}, {"name": "t2", "v": 2}]}""";
  private static final String DOC2 = """
      {"customer": {"name": "a", "id": 1}, "e": {}, "n": null, "arr": [], "objs": [{"a": 1}, {"b": 2}],
       "f.dotted": 5}""";

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "1 | {'includes': ['*name']} | {'name': 'top', 'xname': 'x'}",
      "1 | {'includes': ['*e']} | {'name': 'top', 'xname': 'x'}",
      "1 | {'includes': ['customer.*']} | {'customer': {'name': 'a', 'id': 1, 'addr': {'city': 'x', 'zip': 'y'}}}",
      "1 | {'includes': ['*.name']} | {'customer': {'name': 'a'}, 'tags': [{'name': 't1'}, {'name': 't2'}]}",
      "1 | {'includes': ['cust*']} | {'customer': {'name': 'a', 'id': 1, 'addr': {'city': 'x', 'zip': 'y'}}}",
      "1 | {'includes': ['c*.a*']} | {'customer': {'addr': {'city': 'x', 'zip': 'y'}}}",
      "1 | {'includes': ['customer.zz*']} | {}",
      "1 | {'includes': ['tags.name']} | {'tags': [{'name': 't1'}, {'name': 't2'}]}",
      // excludes without a wildcard: what they empty is left out
      "1 | {'excludes': ['customer.name', 'customer.id', 'customer.addr']} | {'name': 'top', 'xname': 'x',"
          + " 'tags': [{'name': 't1', 'v': 1}, {'name': 't2', 'v': 2}]}",
      "1 | {'excludes': ['tags.name', 'tags.v']} | {'customer': {'name': 'a', 'id': 1, 'addr': {'city': 'x',"
          + " 'zip': 'y'}}, 'name': 'top', 'xname': 'x'}",
      "1 | {'includes': ['customer.addr.*'], 'excludes': ['customer.addr.city', 'customer.addr.zip']} | {}",
      "1 | {'excludes': ['customer.name', 'customer.id']} | {'customer': {'addr': {'city': 'x', 'zip': 'y'}},"
          + " 'name': 'top', 'xname': 'x', 'tags': [{'name': 't1', 'v': 1}, {'name': 't2', 'v': 2}]}",
      // an exclude with a wildcard: * crosses dots, and what it empties stays where included
      "1 | {'excludes': ['customer.*']} | {'name': 'top', 'xname': 'x', 'customer': {}, 'tags': [{'name': 't1',"
          + " 'v': 1}, {'name': 't2', 'v': 2}]}",
      "1 | {'excludes': ['customer.n*', 'customer.i*', 'customer.a*']} | {'name': 'top', 'xname': 'x',"
          + " 'customer': {}, 'tags': [{'name': 't1', 'v': 1}, {'name': 't2', 'v': 2}]}",
      "1 | {'excludes': ['*name']} | {'customer': {'id': 1, 'addr': {'zip': 'y', 'city': 'x'}}, 'tags': [{'v': 1},"
          + " {'v': 2}]}",
      "1 | {'excludes': ['*.*']} | {'name': 'top', 'xname': 'x', 'customer': {}, 'tags': []}",
      "1 | {'excludes': ['tags.*']} | {'name': 'top', 'xname': 'x', 'customer': {'name': 'a', 'id': 1,"
          + " 'addr': {'city': 'x', 'zip': 'y'}}, 'tags': []}",
      "1 | {'excludes': ['customer.addr.*']} | {'name': 'top', 'xname': 'x', 'customer': {'name': 'a', 'id': 1,"
          + " 'addr': {}}, 'tags': [{'name': 't1', 'v': 1}, {'name': 't2', 'v': 2}]}",
      "1 | {'excludes': ['customer.name', 'customer.id', 'customer.addr.*']} | {'name': 'top', 'xname': 'x',"
          + " 'customer': {'addr': {}}, 'tags': [{'name': 't1', 'v': 1}, {'name': 't2', 'v': 2}]}",
      "1 | {'includes': ['customer'], 'excludes': ['customer.*']} | {'customer': {}}",
      "1 | {'includes': ['customer.addr'], 'excludes': ['customer.addr.c*', 'customer.addr.z*']}"
          + " | {'customer': {'addr': {}}}",
      "1 | {'includes': ['*name'], 'excludes': ['zz*']} | {'name': 'top', 'xname': 'x', 'customer': {'name': 'a'},"
          + " 'tags': [{'name': 't1'}, {'name': 't2'}]}",
      "2 | {'includes': ['e']} | {'e': {}}",
      "2 | {'includes': ['e*']} | {'e': {}}",
      "2 | {'includes': ['arr']} | {'arr': []}",
      "2 | {'includes': ['n']} | {'n': null}",
      "2 | {'includes': ['f.*']} | {'f.dotted': 5}",
      "2 | {'includes': ['objs.a']} | {'objs': [{'a': 1}]}",
      "2 | {'excludes': ['objs.a']} | {'customer': {'name': 'a', 'id': 1}, 'e': {}, 'n': null, 'arr': [],"
          + " 'objs': [{'b': 2}], 'f.dotted': 5}",
      "2 | {'excludes': ['objs.a*']} | {'customer': {'name': 'a', 'id': 1}, 'e': {}, 'n': null, 'arr': [],"
          + " 'objs': [{'b': 2}], 'f.dotted': 5}",
      "2 | {'excludes': ['customer.name', 'customer.id']} | {'e': {}, 'n': null, 'arr': [], 'objs': [{'a': 1},"
          + " {'b': 2}], 'f.dotted': 5}",
  })
  void filtersAsTheNodeDoes(int doc, String option, String expected) throws Exception {
    ObjectNode source = (ObjectNode) JSON.readTree(doc == 1 ? DOC : DOC2);
    SourceFilter filter = SourceFilter.parse(JSON.readTree(option.replace('\'', '"')));
    assertEquals(JSON.readTree(expected.replace('\'', '"')), filter.apply(source), option);
  }

  /**
   * {@code exclude_vectors}: false asks for the vectors a node keeps out of the stored source (put back by the
   * executor), true or absent leaves them out; it filters nothing else, and is a boolean or a 400.
   */
  @Test
  void excludeVectorsIsABooleanThatFiltersNothingElse() throws Exception {
    ObjectNode source = (ObjectNode) JSON.readTree(DOC);
    SourceFilter with = SourceFilter.parse(JSON.readTree("{\"exclude_vectors\": false}"));
    assertTrue(with.vectors() && with.fetches());
    assertEquals(source, with.apply(source));
    assertTrue(!SourceFilter.parse(JSON.readTree("{\"exclude_vectors\": true}")).vectors());
    assertTrue(!SourceFilter.parse(JSON.readTree("{\"includes\": [\"a\"]}")).vectors());
    assertTrue(!SourceFilter.parse(JSON.readTree("true")).vectors());
    SourceFilter both = SourceFilter.parse(JSON.readTree("{\"includes\": [\"seq\"], \"exclude_vectors\": false}"));
    assertTrue(both.vectors());
    DslException e = assertThrows(DslException.class,
        () -> SourceFilter.parse(JSON.readTree("{\"exclude_vectors\": \"no\"}")));
    assertEquals(400, e.status());
    assertTrue(e.getMessage().contains("exclude_vectors"), e.getMessage());
  }
}

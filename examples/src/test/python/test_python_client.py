# Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
"""The official Python client's everyday calls, made as a user makes them, against a real Elasticsearch 9.3.3 node
and against the service over that node's snapshot (both holding the DslDataset indices dsl-a and dsl-b): each test
makes one call of the client against both and asserts that the client returns the same thing.

Run by PythonClientSuiteTest (examples, JUnit) with PERMAFROST_NODE_URL and PERMAFROST_SERVICE_URL set. Only what must
differ between two answers is normalized (NORMALIZED lists each rule and why); everything else is compared as
returned, numbers that are not integers within a relative 1e-6 (scores: the service sums them in another order).
"""

import os

import elastic_transport
import elasticsearch
import pytest
from elasticsearch import Elasticsearch, helpers
from elasticsearch.dsl import Search

NODE_URL = os.environ["PERMAFROST_NODE_URL"]
SERVICE_URL = os.environ["PERMAFROST_SERVICE_URL"]
INDICES = "dsl-*"
RELATIVE = 1e-6

# Where two answers must differ, and why. Each entry is a JSON path pattern (keys, "*" for any key or list position)
# and the reason; the value there is not compared (only its presence, when the node has it).
NORMALIZED = {
    "took": "wall time of the search",
    "pit_id": "a point in time's id is opaque and names what its server keeps",
    "_scroll_id": "a scroll's id is opaque and names what its server keeps",
    "cluster_name": "the node's cluster has a name of its own; the service is no cluster",
}


@pytest.fixture(scope="session")
def node():
    with Elasticsearch(NODE_URL, request_timeout=120) as client:
        yield client


@pytest.fixture(scope="session")
def service():
    with Elasticsearch(SERVICE_URL, request_timeout=120) as client:
        yield client


def body(response):
    """What a user reads of an answer: the body of an ObjectApiResponse, a HeadApiResponse's truth, text as is."""
    if isinstance(response, elastic_transport.HeadApiResponse):
        return bool(response)
    if isinstance(response, elastic_transport.ApiResponse):
        return response.body
    return response


def differences(expected, actual, path="$", normalized=NORMALIZED):
    """The paths where actual differs from expected, each with both values (empty when the same)."""
    out = []
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected.keys() | actual.keys():
            where = f"{path}.{key}"
            if key not in actual or key not in expected:
                out.append(f"{where}: the node has {expected.get(key, '(nothing)')!r},"
                           f" the service {actual.get(key, '(nothing)')!r}")
            elif key not in normalized:
                out.extend(differences(expected[key], actual[key], where, normalized))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(differences(e, a, f"{path}[{i}]", normalized))
        if len(expected) != len(actual):
            out.append(f"{path}: the node has {len(expected)} elements, the service {len(actual)}")
        return out
    if (isinstance(expected, float) or isinstance(actual, float)) and isinstance(expected, (int, float)) \
            and isinstance(actual, (int, float)) and not isinstance(expected, bool) and not isinstance(actual, bool):
        if expected != actual and abs(expected - actual) > RELATIVE * max(abs(expected), abs(actual)):
            out.append(f"{path}: the node has {expected!r}, the service {actual!r}")
        return out
    if expected != actual or type(expected) is not type(actual):
        out.append(f"{path}: the node has {expected!r}, the service {actual!r}")
    return out


def assert_same(what, expected, actual, normalized=NORMALIZED):
    found = differences(body(expected), body(actual), normalized=normalized)
    assert not found, f"{what}: the service's answer differs from the node's at {len(found)} places:\n" \
        + "\n".join(found[:40])


def both(node, service, call):
    """The call's answer from the node, then from the service."""
    return call(node), call(service)


# --- search, count, msearch ---------------------------------------------------------------------------------------

def test_search(node, service):
    def call(es):
        return es.search(index=INDICES, query={"bool": {"must": [{"match": {"message": "login"}}],
                                                        "filter": [{"range": {"status": {"gte": 400}}}]}},
                         sort=[{"@timestamp": "desc"}, {"seq": "asc"}], size=25, from_=5,
                         aggs={"hosts": {"terms": {"field": "host"}, "aggs": {"bytes": {"avg": {"field": "bytes"}}}},
                               "per_day": {"date_histogram": {"field": "@timestamp", "calendar_interval": "week"}}})
    expected, actual = both(node, service, call)
    assert len(expected["hits"]["hits"]) == 25
    assert_same("search", expected, actual)


def test_search_scored(node, service):
    expected, actual = both(node, service, lambda es: es.search(
        index=INDICES, query={"match": {"message": "timeout user"}}, sort=["_score", {"seq": "asc"}], size=30))
    assert_same("search sorted on _score", expected, actual)


def test_count(node, service):
    expected, actual = both(node, service, lambda es: es.count(
        index=INDICES, query={"query_string": {"query": "level:error AND status:[500 TO 599]"}}))
    assert expected["count"] > 0
    assert_same("count", expected, actual)


def test_msearch(node, service):
    searches = [{"index": "dsl-a"}, {"size": 3, "query": {"term": {"host": "web-01"}}, "sort": ["seq"]},
                {"index": "dsl-b"}, {"size": 0, "aggs": {"levels": {"terms": {"field": "level"}}}},
                {"index": "no-such-index"}, {"query": {"match_all": {}}}]
    expected, actual = both(node, service, lambda es: es.msearch(searches=searches))
    assert [r["status"] for r in expected["responses"]] == [200, 200, 404]
    assert_same("msearch", expected, actual)


# --- scroll: helpers.scan and Search.scan() ------------------------------------------------------------------------

def scanned(hits):
    return [(h["_index"], h["_id"], h["_source"]) for h in hits]


def test_helpers_scan(node, service):
    """Every matching document exactly once (a scroll's order by _doc is each server's own: compared as sets)."""
    query = {"query": {"range": {"bytes": {"gte": 20000}}}}
    expected = scanned(helpers.scan(node, index=INDICES, query=query, size=500, scroll="1m"))
    actual = scanned(helpers.scan(service, index=INDICES, query=query, size=500, scroll="1m"))
    assert len(expected) > 3000
    assert len({(i, d) for i, d, _ in actual}) == len(actual), "a document came twice"
    assert sorted(actual, key=lambda h: (h[0], h[1])) == sorted(expected, key=lambda h: (h[0], h[1]))


def test_helpers_scan_preserving_order(node, service):
    query = {"query": {"terms": {"level": ["warn", "error"]}}, "sort": [{"seq": "desc"}]}
    expected = list(helpers.scan(node, index=INDICES, query=query, size=700, preserve_order=True))
    actual = list(helpers.scan(service, index=INDICES, query=query, size=700, preserve_order=True))
    assert len(expected) > 1000
    assert_same("helpers.scan(preserve_order=True)", expected, actual)


def test_dsl_search_scan(node, service):
    def call(es):
        s = Search(using=es, index=INDICES).query("match", message="cache").filter("term", level="info")
        return sorted(((h.meta.index, h.meta.id, h.to_dict()) for h in s.params(size=400).scan()),
                      key=lambda h: (h[0], h[1]))
    expected, actual = both(node, service, call)
    assert len(expected) > 500
    assert expected == actual


def test_clear_scroll(node, service):
    """A scroll opened by hand and cleared: the clear's answer, and the 404 a cleared id then gets."""
    def call(es):
        first = es.search(index=INDICES, scroll="1m", size=10, sort=["_doc"])
        cleared = es.clear_scroll(scroll_id=first["_scroll_id"])
        with pytest.raises(elasticsearch.NotFoundError) as gone:
            es.scroll(scroll_id=first["_scroll_id"], scroll="1m")
        return {"cleared": cleared.body, "status": gone.value.meta.status,
                "type": gone.value.body["error"]["type"]}
    expected, actual = both(node, service, call)
    assert_same("clear_scroll", expected, actual)


# --- point in time ---------------------------------------------------------------------------------------------------

def pit_pages(es, sort):
    """Opens a point in time over the indices, pages through it with search_after to the end, closes it."""
    pit = es.open_point_in_time(index=INDICES, keep_alive="1m")
    pages = []
    after = None
    try:
        while True:
            kwargs = {"search_after": after} if after is not None else {}
            page = es.search(pit={"id": pit["id"], "keep_alive": "1m"}, sort=sort, size=1000,
                             query={"bool": {"must_not": {"term": {"host": "db-01"}}}}, **kwargs)
            pages.append(page.body)
            if not page["hits"]["hits"]:
                break
            after = page["hits"]["hits"][-1]["sort"]
    finally:
        closed = es.close_point_in_time(id=pit["id"])
    return {"opened": {k: v for k, v in pit.body.items() if k != "id"}, "pages": pages, "closed": closed.body}


# The implicit tie-breaker of a point in time is _shard_doc: the last sort value of a hit packs the shard's position
# in the search and the Lucene document id, which is each server's own numbering (the service mounts each shard as an
# index of its own). Its presence is compared, its value not; the order of the hits it breaks ties of is compared.
# The id open_point_in_time returns is opaque: pit_pages leaves it out.


def without_tie_breaker(result):
    for page in result["pages"]:
        for hit in page["hits"]["hits"]:
            assert isinstance(hit["sort"][-1], int), f"the _shard_doc tie-breaker is an integer: {hit['sort']}"
            hit["sort"] = hit["sort"][:-1]
    return result


@pytest.mark.parametrize("sort", [[{"seq": "asc"}], [{"@timestamp": "desc"}, {"seq": "asc"}]],
                         ids=["seq", "timestamp-desc"])
def test_point_in_time_search_after_to_the_end(node, service, sort):
    expected = without_tie_breaker(pit_pages(node, sort))
    actual = without_tie_breaker(pit_pages(service, sort))
    ids = [h["_id"] for p in expected["pages"] for h in p["hits"]["hits"]]
    assert len(ids) == len(set(ids)) > 3000 and len(expected["pages"]) > 3
    assert_same("point in time", expected, actual)


def test_point_in_time_sorted_on_shard_doc_alone(node, service):
    """Sorted on _shard_doc alone, every document exactly once over the pages (its order is each server's own)."""
    def ids(es):
        result = pit_pages(es, [{"_shard_doc": "asc"}])
        return [(h["_index"], h["_id"]) for p in result["pages"] for h in p["hits"]["hits"]]
    expected, actual = both(node, service, ids)
    assert len(actual) == len(set(actual))
    assert sorted(actual) == sorted(expected)


# --- indices, cat, cluster -------------------------------------------------------------------------------------------

def test_indices_exists(node, service):
    def call(es):
        return [body(es.indices.exists(index=name)) for name in ("dsl-a", "dsl-b", "dsl-*", "no-such-index", "dsl-a,nope")]
    expected, actual = both(node, service, call)
    assert expected == [True, True, True, False, False]
    assert actual == expected


def test_indices_get(node, service):
    expected, actual = both(node, service, lambda es: es.indices.get(index="dsl-*"))
    assert set(expected) == {"dsl-a", "dsl-b"}
    assert_same("indices.get", expected, actual)


def test_indices_get_missing(node, service):
    def call(es):
        with pytest.raises(elasticsearch.NotFoundError) as missing:
            es.indices.get(index="no-such-index")
        return {"status": missing.value.meta.status, "body": missing.value.body}
    expected, actual = both(node, service, call)
    assert_same("indices.get of a missing index", expected, actual)


def test_indices_get_mapping(node, service):
    expected, actual = both(node, service, lambda es: es.indices.get_mapping(index=INDICES))
    assert_same("indices.get_mapping", expected, actual)


def test_cat_indices_text(node, service):
    expected, actual = both(node, service, lambda es: es.cat.indices(index=INDICES, v=True, s="index"))
    assert isinstance(body(actual), str)
    assert body(expected).splitlines()[0].split()[:3] == ["health", "status", "index"]
    assert_same("cat.indices", expected, actual)


def test_cat_indices_columns(node, service):
    expected, actual = both(node, service, lambda es: es.cat.indices(
        index=INDICES, h="index,docs.count,health,status", s="docs.count:desc"))
    assert_same("cat.indices with h and s", expected, actual)


def test_cat_indices_json(node, service):
    expected, actual = both(node, service, lambda es: es.cat.indices(index=INDICES, format="json", s="index",
                                                                      bytes="b"))
    assert [row["index"] for row in body(expected)] == ["dsl-a", "dsl-b"]
    assert_same("cat.indices format=json", expected, actual)


def test_cluster_health(node, service):
    expected, actual = both(node, service, lambda es: es.cluster.health())
    assert expected["status"] == "green"
    assert_same("cluster.health", expected, actual)


def test_field_caps(node, service):
    expected, actual = both(node, service, lambda es: es.field_caps(index=INDICES, fields="*"))
    assert_same("field_caps", expected, actual)


def test_field_caps_of_patterns(node, service):
    expected, actual = both(node, service, lambda es: es.field_caps(index=INDICES, fields=["user.*", "message*"]))
    assert set(expected["fields"]) == {"user", "user.name", "user.age", "message", "message.raw"}
    assert_same("field_caps of patterns", expected, actual)


def test_field_caps_of_a_comma_separated_string(node, service):
    """The client sends fields in the body: a node reads one string there as one pattern, commas and all."""
    expected, actual = both(node, service, lambda es: es.field_caps(index=INDICES, fields="user.*,message*"))
    assert_same("field_caps of 'user.*,message*'", expected, actual)


# --- errors, filter_path, highlight ----------------------------------------------------------------------------------

def raised(call):
    """The exception class the client raises, with the status and body it carries."""
    try:
        call()
    except elasticsearch.ApiError as e:
        return {"exception": type(e).__name__, "status": e.meta.status, "body": e.body}
    pytest.fail("no error")


@pytest.mark.parametrize("path", ["/_no_such_endpoint", "/dsl-a/_no_such_endpoint", "/_cat/no_such_thing"])
def test_unknown_endpoint(node, service, path):
    expected, actual = both(node, service, lambda es: raised(
        lambda: es.perform_request("GET", path, headers={"accept": "application/json"})))
    assert_same("GET " + path, expected, actual)


def test_unknown_method(node, service):
    expected, actual = both(node, service, lambda es: raised(
        lambda: es.perform_request("DELETE", "/_search", headers={"accept": "application/json"})))
    assert_same("a method an endpoint does not take", expected, actual)


def test_missing_index_search(node, service):
    expected, actual = both(node, service, lambda es: raised(lambda: es.search(index="no-such-index")))
    assert expected["exception"] == "NotFoundError"
    assert_same("a search of a missing index", expected, actual)


def test_filter_path(node, service):
    expected, actual = both(node, service, lambda es: es.search(
        index=INDICES, query={"term": {"level": "error"}}, sort=["seq"], size=5,
        aggs={"h": {"terms": {"field": "host"}}},
        filter_path=["hits.total", "hits.hits._id", "hits.hits._source.user", "aggregations.*.buckets.key",
                     "-hits.hits._source.user.age"]))
    assert set(expected) == {"hits", "aggregations"}
    assert_same("filter_path", expected, actual)


def test_filter_path_on_count_and_mapping(node, service):
    def call(es):
        return [es.count(index=INDICES, filter_path="count").body,
                es.indices.get_mapping(index="dsl-a", filter_path="*.mappings.properties.user").body]
    expected, actual = both(node, service, call)
    assert_same("filter_path on _count and _mapping", expected, actual)


def test_highlight(node, service):
    expected, actual = both(node, service, lambda es: es.search(
        index=INDICES, query={"match": {"message": "disk timeout"}}, sort=["seq"], size=20,
        highlight={"fields": {"message": {}}}))
    assert all("highlight" in h for h in expected["hits"]["hits"])
    assert_same("highlight", expected, actual)


def test_highlight_options(node, service):
    expected, actual = both(node, service, lambda es: es.search(
        index=INDICES, query={"match_phrase": {"message": "user login"}}, sort=["seq"], size=10,
        highlight={"pre_tags": ["<b>"], "post_tags": ["</b>"],
                   "fields": {"message": {"fragment_size": 18, "number_of_fragments": 2}}}))
    assert_same("highlight with tags and fragments", expected, actual)

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.sample;

/**
 * One nginx access-log event, as the generator draws it. The fields that are constant per host or per data set
 * (agent, cloud, ECS version, ...) are added by {@link AccessLogDocuments}; together they make about 35 fields.
 *
 * @param timestamp milliseconds since the epoch
 * @param host index of the web server in {@link AccessLogGenerator#HOSTS}
 * @param sourceIp the client's address, drawn with a Zipf skew (a few addresses make most requests)
 * @param sourcePort the client's port
 * @param country ISO code of the client's country
 * @param continent the country's continent
 * @param city a city name within the country
 * @param method HTTP method
 * @param path URL path
 * @param query URL query string, or null
 * @param httpVersion "1.1" or "2.0"
 * @param status HTTP status code
 * @param bytes response body bytes
 * @param durationNanos time nginx took to answer
 * @param referrer the referrer, or "-"
 * @param userAgent index into {@link AccessLogGenerator#USER_AGENTS}
 * @param traceId a 32-hex-digit trace id
 */
public record AccessLogEvent(
    long timestamp,
    int host,
    String sourceIp,
    int sourcePort,
    String country,
    String continent,
    String city,
    String method,
    String path,
    String query,
    String httpVersion,
    int status,
    long bytes,
    long durationNanos,
    String referrer,
    int userAgent,
    String traceId) {}

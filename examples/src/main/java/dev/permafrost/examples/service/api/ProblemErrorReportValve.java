/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's error report for requests it refuses before they reach the service (an encoded '/' in the path, a
 * malformed request line or header), as an RFC 9457 problem document instead of Tomcat's HTML page, like every other
 * error of the API. Errors the service handles already have a body and are left alone. Never a stack trace.
 */
public final class ProblemErrorReportValve extends ErrorReportValve {
  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    AtomicBoolean ioAllowed = new AtomicBoolean(true);
    response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
    if (!ioAllowed.get()) {
      return;
    }
    HttpStatus known = HttpStatus.resolve(status);
    String title = known != null ? known.getReasonPhrase() : "Error";
    String detail = status == 400
        ? "the server refused the request before it reached the service: its path or headers are malformed (an encoded"
            + " '/' or '\\' in the path, or '..' segments, are not accepted)"
        : "the server could not handle the request (" + title + ")";
    String instance = request.getRequestURI();
    String json = "{\"type\":\"about:blank\",\"title\":" + quote(title) + ",\"status\":" + status + ",\"detail\":"
        + quote(detail) + (instance == null ? "" : ",\"instance\":" + quote(instance)) + "}";
    try {
      response.setContentType("application/problem+json"); // the JSON is ASCII: non-ASCII characters are escaped
      Writer writer = response.getReporter();
      if (writer != null) {
        writer.write(json);
        response.finishResponse();
      }
    } catch (IOException | IllegalStateException e) {
      // the client is gone or the response committed: nothing more to say
    }
  }

  /** {@code s} as a JSON string. */
  static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob.gcs;

import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.LowLevelHttpRequest;
import com.google.api.client.http.LowLevelHttpResponse;
import com.google.api.client.util.StreamingContent;
import dev.permafrost.blob.Durations;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ProxySelector;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP engine under a store's google-cloud-storage client: a google-http-client {@link HttpTransport} over the
 * JDK's {@link HttpClient} (HTTP/1.1), in place of the {@code HttpURLConnection} the SDK uses by default.
 *
 * <ul>
 *   <li><b>Abortable.</b> A response stream can be closed from any thread while another thread is blocked reading
 *       it: the blocked read fails at once and the connection is closed, its unread body discarded, not drained.
 *       With {@code HttpURLConnection} this cannot be done: closing (or {@code disconnect()}ing) a response stream
 *       waits for the lock that the blocked read holds, so it returns only when the read does, after up to
 *       {@code read_timeout}. (Apache HttpClient could abort too, but google-cloud-storage's pom strips the
 *       commons-logging it needs.)
 *   <li><b>No resending.</b> Redirects are not followed, and a response, an error included, is always reported,
 *       never answered with another attempt. Two guards of the JDK client remain, which no setting of a client
 *       turns off: it connects once more when a connection attempt is refused, and it sends a GET or HEAD once more
 *       when the connection is closed or reset before any byte of the response (how it recovers from a pooled
 *       connection the server has dropped; {@code HttpURLConnection} does the same).
 *   <li><b>Time-outs</b> as before: {@code connect_timeout} to open a connection; {@code read_timeout} from the
 *       end of sending the request to the response's headers, and for each read of the response body.
 *   <li>Request bodies are buffered in memory before they are sent (one upload request at a time: at most
 *       {@code single_upload_threshold} or one {@code part_size} part).
 * </ul>
 *
 * <p>{@link Exchange} ties the requests that a thread sends while it is {@linkplain Exchange#enter() in} an
 * exchange to that exchange, so that a response stream can abort the request it reads from.
 */
final class GcsHttp implements Closeable {
  /** Headers the JDK client sets itself and refuses to take. */
  private static final Set<String> RESTRICTED_HEADERS = caseInsensitive("connection", "content-length", "expect",
      "host", "upgrade");
  /** The exchange the current thread is reading for, if any. */
  private static final ThreadLocal<Exchange> CURRENT = new ThreadLocal<>();

  private final HttpClient client;
  private final int defaultReadTimeoutMillis;
  private final Transport transport = new Transport();

  GcsHttp(Duration connectTimeout, Duration readTimeout) {
    HttpClient.Builder builder = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(connectTimeout);
    ProxySelector proxies = ProxySelector.getDefault(); // the system proxies, as HttpURLConnection uses them
    if (proxies != null) {
      builder.proxy(proxies);
    }
    this.client = builder.build();
    this.defaultReadTimeoutMillis = Math.toIntExact(readTimeout.toMillis());
  }

  /** The transport for the SDK's {@code HttpTransportOptions}. */
  HttpTransport transport() {
    return transport;
  }

  /** Stops the client: requests still running fail, pooled connections are closed. */
  @Override
  public void close() {
    client.shutdownNow();
  }

  private static Set<String> caseInsensitive(String... names) {
    Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    set.addAll(List.of(names));
    return set;
  }

  /** Runs the read and response time-outs of every store; a daemon thread, started on first use. */
  private static final class Timer {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "permafrost-gcs-http-timer");
        t.setDaemon(true);
        return t;
      });
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }

    static ScheduledFuture<?> schedule(Runnable task, int millis) {
      return INSTANCE.schedule(task, millis, TimeUnit.MILLISECONDS);
    }
  }

  private final class Transport extends HttpTransport {
    @Override
    protected LowLevelHttpRequest buildRequest(String method, String url) {
      return new Request(method, url);
    }

    @Override
    public boolean supportsMethod(String method) {
      return true;
    }
  }

  /** One request, as google-http-client describes it. */
  private final class Request extends LowLevelHttpRequest {
    private final String method;
    private final String url;
    private final List<Map.Entry<String, String>> headers = new ArrayList<>();
    /** 0 means none, as in google-http-client. */
    private int readTimeoutMillis = defaultReadTimeoutMillis;

    Request(String method, String url) {
      this.method = method;
      this.url = url;
    }

    @Override
    public void addHeader(String name, String value) {
      if (value != null) {
        headers.add(Map.entry(name, value));
      }
    }

    @Override
    public void setTimeout(int connectTimeout, int readTimeout) {
      // The connect time-out is the client's (the same setting); the read time-out may differ per request.
      this.readTimeoutMillis = readTimeout;
    }

    @Override
    public LowLevelHttpResponse execute() throws IOException {
      HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url));
      for (Map.Entry<String, String> h : headers) {
        if (!RESTRICTED_HEADERS.contains(h.getKey())) {
          builder.header(h.getKey(), h.getValue());
        }
      }
      ResponseTimer timer = new ResponseTimer(readTimeoutMillis);
      StreamingContent content = getStreamingContent();
      if (content == null) {
        builder.method(method, BodyPublishers.noBody());
        timer.sent();
      } else {
        if (getContentType() != null) {
          builder.header("Content-Type", getContentType());
        }
        if (getContentEncoding() != null) {
          builder.header("Content-Encoding", getContentEncoding());
        }
        Buffer body = new Buffer(getContentLength());
        content.writeTo(body);
        builder.method(method, whenSent(body.publisher(), timer::sent));
      }
      CompletableFuture<HttpResponse<InputStream>> future =
          client.sendAsync(builder.build(), BodyHandlers.ofInputStream());
      timer.started(future);
      Exchange exchange = CURRENT.get();
      if (exchange != null) {
        exchange.attach(() -> future.cancel(true));
      }
      HttpResponse<InputStream> response;
      try {
        response = future.get();
      } catch (InterruptedException e) {
        future.cancel(true);
        Thread.currentThread().interrupt();
        InterruptedIOException ie = new InterruptedIOException("interrupted waiting for the response to " + method);
        ie.initCause(e);
        throw ie;
      } catch (CancellationException e) {
        if (timer.fired()) {
          throw new SocketTimeoutException(
              "no response within the read timeout of " + Durations.format(Duration.ofMillis(readTimeoutMillis)));
        }
        throw new IOException("the request was aborted", e);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (cause instanceof IOException io) {
          throw io;
        }
        if (cause instanceof RuntimeException re) {
          throw re;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new IOException(cause);
      } finally {
        timer.stop();
      }
      BodyStream body = new BodyStream(response.body(), readTimeoutMillis);
      if (exchange != null) {
        exchange.attach(body::abort);
      }
      return new Response(response, body);
    }
  }

  /** A request body, buffered; sized up front when its length is known. */
  private static final class Buffer extends ByteArrayOutputStream {
    Buffer(long expectedLength) {
      super((int) Math.max(32, Math.min(expectedLength, 64 << 20)));
    }

    BodyPublisher publisher() {
      return BodyPublishers.ofByteArray(buf, 0, count); // no copy
    }
  }

  /** {@code body}, calling {@code sent} once the client has taken all of it. */
  private static BodyPublisher whenSent(BodyPublisher body, Runnable sent) {
    return new BodyPublisher() {
      @Override
      public long contentLength() {
        return body.contentLength();
      }

      @Override
      public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        body.subscribe(new Flow.Subscriber<ByteBuffer>() {
          @Override
          public void onSubscribe(Flow.Subscription subscription) {
            subscriber.onSubscribe(subscription);
          }

          @Override
          public void onNext(ByteBuffer item) {
            subscriber.onNext(item);
          }

          @Override
          public void onError(Throwable throwable) {
            subscriber.onError(throwable);
          }

          @Override
          public void onComplete() {
            sent.run();
            subscriber.onComplete();
          }
        });
      }
    };
  }

  /**
   * The read time-out while waiting for a response: armed once the request is sent (body included), it cancels
   * the request if no response has come by then.
   */
  private static final class ResponseTimer {
    private final int millis;
    private CompletableFuture<?> request; // guarded by this
    private boolean sent; // guarded by this
    private boolean stopped; // guarded by this
    private ScheduledFuture<?> alarm; // guarded by this
    private volatile boolean fired;

    ResponseTimer(int millis) {
      this.millis = millis;
    }

    synchronized void started(CompletableFuture<?> f) {
      request = f;
      arm();
    }

    synchronized void sent() {
      sent = true;
      arm();
    }

    private void arm() {
      if (request != null && sent && alarm == null && !stopped && millis > 0) {
        alarm = Timer.schedule(this::fire, millis);
      }
    }

    private void fire() {
      CompletableFuture<?> f;
      synchronized (this) {
        if (stopped) {
          return;
        }
        f = request;
      }
      fired = true;
      f.cancel(true);
    }

    boolean fired() {
      return fired;
    }

    synchronized void stop() {
      stopped = true;
      if (alarm != null) {
        alarm.cancel(false);
      }
    }
  }

  /**
   * A response body. Each read that has to wait for data fails with a {@link SocketTimeoutException} after the read
   * time-out; {@link #abort()}, from any thread, discards the rest of the body and closes the connection (the JDK
   * client returns a connection to its pool only once a body has been read to its end), failing a blocked read.
   */
  private static final class BodyStream extends InputStream {
    private final InputStream in;
    private final int readTimeoutMillis;
    private volatile boolean timedOut;

    BodyStream(InputStream in, int readTimeoutMillis) {
      this.in = in;
      this.readTimeoutMillis = readTimeoutMillis;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n;
      do {
        n = read(one, 0, 1);
      } while (n == 0);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (readTimeoutMillis <= 0 || in.available() > 0) {
        return in.read(b, off, len); // no wait
      }
      ScheduledFuture<?> alarm = Timer.schedule(this::expire, readTimeoutMillis);
      try {
        return in.read(b, off, len);
      } catch (IOException e) {
        if (timedOut) {
          SocketTimeoutException timeout =
              new SocketTimeoutException(
                  "no data for the read timeout of " + Durations.format(Duration.ofMillis(readTimeoutMillis)));
          timeout.initCause(e);
          throw timeout;
        }
        throw e;
      } finally {
        alarm.cancel(false);
      }
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    private void expire() {
      timedOut = true;
      abort();
    }

    void abort() {
      try {
        in.close();
      } catch (IOException | RuntimeException ignored) {
        // nothing more to release
      }
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  private static final class Response extends LowLevelHttpResponse {
    private final HttpResponse<InputStream> response;
    private final BodyStream body;
    private final List<Map.Entry<String, String>> headers = new ArrayList<>();

    Response(HttpResponse<InputStream> response, BodyStream body) {
      this.response = response;
      this.body = body;
      response.headers().map().forEach((name, values) -> {
        if (!name.startsWith(":")) {
          values.forEach(v -> headers.add(Map.entry(name, v)));
        }
      });
    }

    @Override
    public InputStream getContent() {
      return body;
    }

    @Override
    public String getContentEncoding() {
      return response.headers().firstValue("Content-Encoding").orElse(null);
    }

    @Override
    public long getContentLength() {
      return response.headers().firstValueAsLong("Content-Length").orElse(-1);
    }

    @Override
    public String getContentType() {
      return response.headers().firstValue("Content-Type").orElse(null);
    }

    @Override
    public String getStatusLine() {
      return "HTTP/1.1 " + response.statusCode();
    }

    @Override
    public int getStatusCode() {
      return response.statusCode();
    }

    @Override
    public String getReasonPhrase() {
      return null; // HTTP/1.1 reason phrases are not kept by the JDK client
    }

    @Override
    public int getHeaderCount() {
      return headers.size();
    }

    @Override
    public String getHeaderName(int index) {
      return headers.get(index).getKey();
    }

    @Override
    public String getHeaderValue(int index) {
      return headers.get(index).getValue();
    }

    @Override
    public void disconnect() {
      body.abort();
    }
  }

  /**
   * The HTTP request behind one response stream. {@link #abort()} may be called from any thread, at any time:
   * before the request is sent (it is then cancelled as it starts), while it waits for its response, or while its
   * body is being read.
   */
  static final class Exchange {
    private Runnable abortAction; // guarded by this
    private boolean aborted; // guarded by this

    /**
     * Makes this the current thread's exchange until the returned scope is closed: requests the thread sends
     * meanwhile are attached to it.
     */
    Scope enter() {
      Exchange previous = CURRENT.get();
      CURRENT.set(this);
      return () -> {
        if (previous == null) {
          CURRENT.remove();
        } else {
          CURRENT.set(previous);
        }
      };
    }

    private void attach(Runnable abort) {
      synchronized (this) {
        if (!aborted) {
          abortAction = abort;
          return;
        }
      }
      abort.run();
    }

    /**
     * Aborts the request: it is cancelled, or its connection closed with the rest of the body unread, and a read
     * blocked on it fails with an {@code IOException}. Does not block; a second call does nothing.
     */
    void abort() {
      Runnable a;
      synchronized (this) {
        aborted = true;
        a = abortAction;
        abortAction = null;
      }
      if (a != null) {
        a.run();
      }
    }
  }

  /** The span during which a thread's requests belong to an {@link Exchange}. */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.blob;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.Map;

/**
 * Opens a {@link BlobStore} from a URI, choosing the backend by the URI's scheme: {@code file:///var/snapshots}
 * (built in), {@code s3://bucket/prefix}, {@code gs://bucket/prefix}, {@code azblob://container/prefix} (each
 * from its own module on the class path).
 */
public final class BlobStores {
  private BlobStores() {}

  /**
   * Opens the store named by {@code uri}, wrapped in the {@link StorePolicy} its query gives (retries, deadlines,
   * hedging, rate and request limits; defaults for what it does not set). Closing the result closes the backend.
   *
   * @throws IllegalArgumentException if no backend on the class path serves the URI's scheme (the message lists
   *     those that do), or if the URI is malformed for its backend
   */
  public static BlobStore open(URI uri) throws IOException {
    if (uri.getScheme() == null) {
      throw new IllegalArgumentException(
          "blob store URI '" + redact(uri) + "' has no scheme; available schemes: " + providers().keySet());
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    Map<String, BlobStoreProvider> providers = providers();
    BlobStoreProvider provider = providers.get(scheme);
    if (provider == null) {
      throw new IllegalArgumentException(
          "no blob store backend for scheme '"
              + scheme
              + "' in '"
              + redact(uri)
              + "'; available schemes: "
              + providers.keySet()
              + " (add the backend's module, e.g. permafrost-blobstore-s3, to the class path)");
    }
    StoreSettings settings = StoreSettings.fromQuery(uri);
    StorePolicy policy = StorePolicy.fromSettings(settings);
    return policy.apply(provider.open(uri, settings));
  }

  /** The backends on the class path, by scheme. */
  static Map<String, BlobStoreProvider> providers() {
    Map<String, BlobStoreProvider> byScheme = new TreeMap<>();
    for (BlobStoreProvider provider : ServiceLoader.load(BlobStoreProvider.class, BlobStores.class.getClassLoader())) {
      byScheme.putIfAbsent(provider.scheme().toLowerCase(Locale.ROOT), provider);
    }
    if (Thread.currentThread().getContextClassLoader() != null) {
      for (BlobStoreProvider provider : ServiceLoader.load(BlobStoreProvider.class)) {
        byScheme.putIfAbsent(provider.scheme().toLowerCase(Locale.ROOT), provider);
      }
    }
    return byScheme;
  }

  /** The URI without its query and user info, which may hold secrets. */
  public static String redact(URI uri) {
    return Uris.redact(uri);
  }

}

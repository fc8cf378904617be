/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import dev.permafrost.snapshot.SnapshotException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.IndexInput;

/**
 * The engines' checksummed metadata blobs ({@code snap-*.dat}, {@code meta-*.dat}, a shard's {@code index-N}): a
 * Lucene codec header naming what the blob holds (format version 1), the content, optionally compressed with
 * DEFLATE behind the 4-byte marker {@code DFL\0}, as SMILE (or JSON), and a Lucene footer whose CRC32 covers the rest.
 * Everything is checked before a byte of content is parsed.
 */
final class MetadataBlob {
  static final ObjectMapper SMILE = new ObjectMapper(new SmileFactory());
  static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] DEFLATE_MARKER = {'D', 'F', 'L', 0};
  private static final byte[] SMILE_HEADER = {':', ')', '\n'};
  private static final int VERSION = 1;
  /** A bound on inflated metadata, so that a damaged or hostile blob cannot exhaust the heap. */
  private static final int MAX_INFLATED = 256 << 20;

  private MetadataBlob() {}

  /**
   * Checks and parses a metadata blob whose header must name {@code codec}.
   *
   * @param where the blob and its store, for messages
   * @throws SnapshotException.CorruptManifest if its checksum, header or content is wrong
   * @throws SnapshotException.UnsupportedFormat if it is of a format version or compression this reader does not know
   */
  static JsonNode read(byte[] bytes, String codec, String where) throws SnapshotException {
    byte[] content;
    try {
      IndexInput in = new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), where);
      CodecUtil.checksumEntireFile(in);
      in.seek(0);
      CodecUtil.checkHeader(in, codec, VERSION, VERSION);
      int start = Math.toIntExact(in.getFilePointer());
      content = Arrays.copyOfRange(bytes, start, bytes.length - CodecUtil.footerLength());
    } catch (IndexFormatTooNewException | IndexFormatTooOldException e) {
      throw new SnapshotException.UnsupportedFormat(where + " is of a metadata format this reader does not know ("
          + e.getMessage() + "): it was written by an engine version Permafrost does not read", e);
    } catch (IOException | RuntimeException e) {
      throw new SnapshotException.CorruptManifest(where + " is damaged or not '" + codec + "' metadata: " + e.getMessage(), e);
    }
    return content(content, where);
  }

  /** Parses content that may be DEFLATE-compressed (behind {@code DFL\0}), as SMILE or JSON. */
  static JsonNode content(byte[] content, String where) throws SnapshotException {
    if (startsWith(content, DEFLATE_MARKER)) {
      content = inflate(content, DEFLATE_MARKER.length, where);
    }
    try {
      if (startsWith(content, SMILE_HEADER)) {
        return SMILE.readTree(content);
      }
      if (content.length > 0 && content[0] == '{') {
        return JSON.readTree(content);
      }
    } catch (IOException e) {
      throw new SnapshotException.CorruptManifest(where + " holds no valid SMILE or JSON: " + e.getMessage(), e);
    }
    throw new SnapshotException.UnsupportedFormat(where + " holds content that is neither DEFLATE-compressed nor SMILE"
        + " nor JSON (first bytes " + hex(content) + "): a compression this reader does not know (only DEFLATE is"
        + " read; a repository with another compression type cannot be mounted)", null);
  }

  private static byte[] inflate(byte[] content, int offset, String where) throws SnapshotException {
    Inflater inflater = new Inflater(true);
    try {
      inflater.setInput(content, offset, content.length - offset);
      ByteArrayOutputStream out = new ByteArrayOutputStream(content.length * 4);
      byte[] buffer = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new SnapshotException.CorruptManifest(where + ": its DEFLATE content ends early", null);
        }
        out.write(buffer, 0, n);
        if (out.size() > MAX_INFLATED) {
          throw new SnapshotException.CorruptManifest(where + ": its content inflates past " + MAX_INFLATED + " bytes", null);
        }
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      throw new SnapshotException.CorruptManifest(where + ": its DEFLATE content is damaged: " + e.getMessage(), e);
    } finally {
      inflater.end();
    }
  }

  static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(8, bytes.length); i++) {
      b.append(String.format("%02x", bytes[i] & 0xff));
    }
    return b.toString();
  }
}

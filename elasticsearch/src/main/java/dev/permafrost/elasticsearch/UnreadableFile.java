/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch;

import dev.permafrost.snapshot.SnapshotException;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.CompoundDirectory;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.Version;

/**
 * The refusal of a shard one of whose files is of a format version this build does not read, as Lucene reports it
 * ({@link IndexFormatTooNewException}, {@link IndexFormatTooOldException}) when the shard is opened at mount: the
 * error names the index, snapshot and shard ({@code where}), the segment, the file (inside its compound file too), the
 * format its header names, the version it has and the versions read, and who wrote the commit (its Lucene version and
 * the engine's {@code es_version} from the commit's user data).
 */
final class UnreadableFile {
  /** A segment file's name in a resource description (a compound file's entry is the slice named last). */
  private static final Pattern FILE = Pattern.compile("(_[a-z0-9]+)(?:_[A-Za-z0-9]+)*\\.[a-z]{2,5}");

  private UnreadableFile() {}

  /** The refusal for {@code e}, met opening the commit in {@code directory}. */
  static SnapshotException.UnsupportedFormat refusal(String where, Directory directory, IOException e) {
    String resource;
    String versions;
    if (e instanceof IndexFormatTooNewException tooNew) {
      resource = tooNew.getResourceDescription();
      versions = "version " + tooNew.getVersion() + ", newer than this build reads (" + tooNew.getMinVersion() + " to "
          + tooNew.getMaxVersion() + ")";
    } else if (e instanceof IndexFormatTooOldException tooOld) {
      resource = tooOld.getResourceDescription();
      versions = tooOld.getVersion() == null ? tooOld.getReason()
          : "version " + tooOld.getVersion() + ", older than this build reads (" + tooOld.getMinVersion() + " to "
              + tooOld.getMaxVersion() + ")";
    } else {
      throw new IllegalArgumentException("not a format version's error: " + e, e);
    }
    String file = lastFileName(resource);
    StringBuilder message = new StringBuilder(where).append(" cannot be read by this build: ");
    if (file != null) {
      message.append("segment ").append(file.substring(0, segmentEnd(file))).append(", file ").append(file)
          .append(", format ").append(headerCodec(directory, file)).append(", ");
    } else {
      message.append(resource).append(": ");
    }
    message.append(versions).append("; the commit was written by ").append(writer(directory))
        .append(", this build runs Lucene ").append(Version.LATEST)
        .append(". Read it with a Permafrost on a Lucene and with engine formats that read this version"
            + " (docs/engine-snapshots.md lists which releases are read)");
    return new SnapshotException.UnsupportedFormat(message.toString(), e);
  }

  /** The last segment file named in {@code resource}, or null. */
  static String lastFileName(String resource) {
    Matcher m = FILE.matcher(String.valueOf(resource));
    String last = null;
    while (m.find()) {
      last = m.group();
    }
    return last;
  }

  private static int segmentEnd(String file) {
    int underscore = file.indexOf('_', 1);
    int dot = file.indexOf('.');
    return underscore < 0 ? dot : Math.min(underscore, dot);
  }

  /** The codec name in {@code file}'s header, looked for in the directory and in its segment's compound file. */
  private static String headerCodec(Directory directory, String file) {
    try {
      if (Arrays.asList(directory.listAll()).contains(file)) {
        return headerCodec(directory.openInput(file, IOContext.READONCE));
      }
      String segment = file.substring(0, segmentEnd(file));
      for (SegmentCommitInfo info : SegmentInfos.readLatestCommit(directory)) {
        if (info.info.name.equals(segment) && info.info.getUseCompoundFile()) {
          try (CompoundDirectory compound = info.info.getCodec().compoundFormat().getCompoundReader(directory, info.info)) {
            return headerCodec(compound.openInput(file, IOContext.READONCE));
          }
        }
      }
      return "(its header was not found)";
    } catch (IOException | RuntimeException e) {
      return "(its header could not be read: " + e + ")";
    }
  }

  private static String headerCodec(IndexInput input) throws IOException {
    try (IndexInput in = input) {
      int magic = CodecUtil.readBEInt(in);
      return magic == CodecUtil.CODEC_MAGIC ? in.readString() : "(no Lucene header)";
    }
  }

  /** Who wrote the commit: its Lucene version, and the engine's version if its user data records it. */
  private static String writer(Directory directory) {
    try {
      SegmentInfos commit = SegmentInfos.readLatestCommit(directory);
      Map<String, String> user = commit.getUserData();
      String engine = user.get("es_version");
      return "Lucene " + commit.getCommitLuceneVersion() + (engine == null ? "" : " (es_version " + engine + ")");
    } catch (IOException | RuntimeException e) {
      return "an unknown Lucene (" + e + ")";
    }
  }
}

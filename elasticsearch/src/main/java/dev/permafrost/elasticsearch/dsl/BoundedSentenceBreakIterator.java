/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.elasticsearch.dsl;

import java.text.BreakIterator;
import java.text.CharacterIterator;
import java.util.Locale;

/**
 * Fragment boundaries as the node's unified highlighter draws them with its {@code sentence} boundary scanner and a
 * {@code fragment_size}, for the two calls Lucene's {@code FieldHighlighter} makes for each new fragment
 * ({@link #preceding} from a match, then {@link #following}). The window is the sentence holding the match. A window
 * within {@code fragment_size} is the fragment, with the sentences after it while the fragment stays within
 * {@code fragment_size} (not after the rest of a sentence another fragment began). A longer one is cut: the fragment starts at the window's start, or where the previous
 * fragment in the same window ended, or, for a match further than {@code fragment_size} from that, at the word
 * boundary before {@code fragment_size} characters ahead of the match; it ends at the first word boundary past
 * {@code fragment_size} from its start (never before the match). The other calls walk sentences. Worked out from a
 * 9.3.3 node's answers (HitShapingTest).
 */
final class BoundedSentenceBreakIterator extends BreakIterator {
  private final BreakIterator sentences = BreakIterator.getSentenceInstance(Locale.ROOT);
  private final BreakIterator words = BreakIterator.getWordInstance(Locale.ROOT);
  private final int fragmentSize;
  /** The sentence the last fragment was drawn in ({@code windowEnd} -1: none yet). */
  private int windowStart;
  private int windowEnd = -1;
  /** Whether the last fragment went on from the one before it in the same sentence. */
  private boolean continued;
  /** The last fragment drawn. */
  private int fragmentStart;
  private int fragmentEnd;
  private int current;
  private int begin;
  private int length;

  BoundedSentenceBreakIterator(int fragmentSize) {
    assert fragmentSize > 0 : fragmentSize;
    this.fragmentSize = fragmentSize;
  }

  @Override
  public int preceding(int offset) {
    continued = windowEnd >= 0 && offset > windowStart && offset < windowEnd;
    if (continued) {
      fragmentStart = fragmentEnd; // the same sentence: on from the last fragment
      fragmentEnd = windowEnd;
    } else {
      int start = sentences.preceding(offset);
      windowStart = start == DONE ? begin : start;
      int end = sentences.following(offset - 1);
      windowEnd = end == DONE ? length : end;
      fragmentStart = windowStart;
      fragmentEnd = windowEnd;
    }
    if (tooLong() && (long) offset - fragmentSize > fragmentStart) {
      int word = words.preceding(offset - fragmentSize);
      fragmentStart = word == DONE ? fragmentStart : Math.max(fragmentStart, word);
    }
    return current = fragmentStart;
  }

  @Override
  public int following(int offset) {
    if (tooLong()) {
      long bound = Math.max((long) fragmentStart + fragmentSize, offset);
      int cut = bound >= length ? DONE : words.following((int) bound);
      fragmentEnd = cut == DONE ? fragmentEnd : Math.min(fragmentEnd, cut);
    } else if (!continued) { // a fragment that goes on in its sentence takes no sentence after it
      while (fragmentEnd < length) {
        int next = sentences.following(fragmentEnd);
        if (next == DONE || (long) next - fragmentStart > fragmentSize) {
          break;
        }
        fragmentEnd = next;
      }
    }
    return current = fragmentEnd;
  }

  private boolean tooLong() {
    return (long) fragmentEnd - fragmentStart > fragmentSize;
  }

  @Override
  public int first() {
    return current = sentences.first();
  }

  @Override
  public int last() {
    return current = sentences.last();
  }

  @Override
  public int next(int n) {
    return current = sentences.next(n);
  }

  @Override
  public int next() {
    return current = sentences.next();
  }

  @Override
  public int previous() {
    return current = sentences.previous();
  }

  @Override
  public int current() {
    return current;
  }

  @Override
  public CharacterIterator getText() {
    return sentences.getText();
  }

  @Override
  public void setText(CharacterIterator text) {
    sentences.setText(text);
    words.setText((CharacterIterator) text.clone());
    begin = text.getBeginIndex();
    length = text.getEndIndex();
    windowStart = begin;
    windowEnd = -1;
    current = text.getBeginIndex();
  }
}

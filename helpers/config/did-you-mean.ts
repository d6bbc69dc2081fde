/**
 * The candidate a mistyped word most likely meant, for a "did you mean" in a usage sentence: the one at the
 * smallest edit distance (insertions, deletions, substitutions, and two neighbours swapped), if that distance
 * is small for the word's length; else undefined, so a word far from every candidate gets no guess.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase()
  let best: { c: string; d: number } | undefined
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase())
    if (!best || d < best.d) best = { c, d }
  }
  if (!best) return undefined
  const allowed = Math.max(1, Math.min(3, Math.floor(Math.max(w.length, best.c.length) / 4)))
  return best.d <= allowed ? best.c : undefined
}

/** " (did you mean X?)" when a candidate is near, else nothing: ready to append to a sentence. */
export function didYouMeanNote(word: string, candidates: readonly string[]): string {
  const near = didYouMean(word, candidates)
  return near && near !== word ? ` (did you mean ${near}?)` : ''
}

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

// Package spell says how far apart two words are, for the "did you mean"
// of a misspelt key or column name. It imports only the standard library,
// so the results contract can use it.
package spell

// Distance is the Levenshtein distance between a and b: the fewest
// single-byte insertions, deletions and substitutions that turn one into
// the other.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Package moment picks between two instants. time.Time has no order the
// built-in min and max know, and the plots and the verdict both clip
// spans to a window.
package moment

import "time"

// Earlier is the earlier of a and b; a when they are the same instant.
func Earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// Later is the later of a and b; a when they are the same instant.
func Later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

package recording

// MaxLineFor sets the longest line the Transport records, for a test; restore
// sets it back.
func MaxLineFor(n int) (restore func()) {
	old := maxLine
	maxLine = n
	return func() { maxLine = old }
}

package listwatch

// SplitFrom sets how many objects a part of a split list needs at least (2,000
// outside tests), for a test on a real server to split a few dozen pods, and
// returns the function that puts it back.
func SplitFrom(n int64) (restore func()) {
	old := minPerPart
	minPerPart = n
	return func() { minPerPart = old }
}

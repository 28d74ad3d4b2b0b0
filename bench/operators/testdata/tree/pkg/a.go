package pkg

// A counts.
func A() int {
	return 1
}

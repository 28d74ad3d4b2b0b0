package testdata

var skipped = 1

package hidden

var skipped = 1

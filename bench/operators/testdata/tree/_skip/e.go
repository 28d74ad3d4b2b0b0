package skip

var skipped = 1

// Package tree is a fixture for count_test.go.
package tree

var B = 2

package controller

// ToOwner is toOwner, Builder.Owns's mapping, for the black-box tests.
var ToOwner = toOwner

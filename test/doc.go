// Package test holds this module's test harnesses, each in a package of
// its own: the operation matrix (test/opmatrix), the fault matrix of
// hostile servers (test/hostile) and that of hostile clients
// (test/hostileclient). They are not API: they change with the tests, and
// only tests import them.
//
// Its own tests check the module's layout: internal/ holds leaves, the
// command line imports no example, and only tests import a harness. They
// also check that an exported name saying Definition is a
// client.Definition: a fake's tools are a fakeserver.Catalog.
package test

package fakeserver

import (
	"fmt"
	"slices"
	"sync"
)

var (
	registryMu sync.Mutex // guards registry
	registry   = map[string]*Catalog{}
)

// Register makes c available by its name: [Options].Catalog,
// the --catalog flag of [Main] (and so of a stdio child that re-runs the
// test binary), and mcptest's scripts. Register it before the child's
// [MainIfChild] runs: in TestMain (mcptest.Main takes catalogs) or in a
// package-level variable's initialiser.
//
// Register returns an error wrapping [ErrBadCatalog] when c is invalid,
// when its name is a built-in catalog's, or when another catalog is
// registered under that name. Registering the same *Catalog twice is a
// no-op. c must not be changed after.
func Register(c *Catalog) error {
	if c == nil {
		return &CatalogError{Err: fmt.Errorf("%w: nil catalog", ErrBadCatalog)}
	}
	if err := c.check(); err != nil {
		return err
	}
	if _, ok := catalogs[c.Name]; ok {
		return &CatalogError{Catalog: c.Name, Err: fmt.Errorf("the name of a built-in catalog")}
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if old, ok := registry[c.Name]; ok && old != c {
		return &CatalogError{Catalog: c.Name, Err: fmt.Errorf("another catalog is registered under this name")}
	}
	registry[c.Name] = c
	return nil
}

// Registered returns the catalog registered under name, if any.
func Registered(name string) (*Catalog, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	c, ok := registry[name]
	return c, ok
}

// Catalogs returns the names of the built-in catalogs and of every
// registered catalog, sorted.
func Catalogs() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	names := []string{CatalogDocs, CatalogRich}
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

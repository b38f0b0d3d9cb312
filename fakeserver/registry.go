package fakeserver

import (
	"fmt"
	"slices"
	"sync"
)

var (
	registryMu sync.Mutex // guards registry
	registry   = map[string]*Definition{}
)

// Register makes d available by its name, as a catalog: [Options].Catalog,
// the --catalog flag of [Main] (and so of a stdio child that re-runs the
// test binary), and mcptest's scripts. Register it before the child's
// [MainIfChild] runs: in TestMain (mcptest.Main takes definitions) or in a
// package-level variable's initialiser.
//
// Register returns an error wrapping [ErrBadDefinition] when d is invalid,
// when its name is a built-in catalog's, or when another definition is
// registered under that name. Registering the same *Definition twice is a
// no-op. d must not be changed after.
func Register(d *Definition) error {
	if d == nil {
		return &DefinitionError{Err: fmt.Errorf("%w: nil definition", ErrBadDefinition)}
	}
	if err := d.check(); err != nil {
		return err
	}
	if _, ok := catalogs[d.Name]; ok {
		return &DefinitionError{Definition: d.Name, Err: fmt.Errorf("the name of a built-in catalog")}
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if old, ok := registry[d.Name]; ok && old != d {
		return &DefinitionError{Definition: d.Name, Err: fmt.Errorf("another definition is registered under this name")}
	}
	registry[d.Name] = d
	return nil
}

// Registered returns the definition registered under name, if any.
func Registered(name string) (*Definition, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	d, ok := registry[name]
	return d, ok
}

// Catalogs returns the names of the built-in catalogs and of every
// registered definition, sorted.
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

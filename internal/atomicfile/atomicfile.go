// Package atomicfile is this module's one way of replacing a file whole: a
// reader sees the old content or the new, never a part, and a failed write
// leaves the old file as it was.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file beside path, gives it mode perm
// and renames it over path, creating path's directory if needed. On any
// error the temporary file is removed and path is untouched. It does not
// sync: the files it writes (cassettes, counters) are test artifacts read
// by other processes, which see the rename at once; surviving a power cut
// is not worth the cost of a sync per write.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

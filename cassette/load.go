package cassette

import (
	"bytes"

	"github.com/looprig/mcp/cassette/internal/format"
)

// Load reads and checks the cassette at path. Every problem with the content
// is a *FormatError naming the file and line.
func Load(path string) (*Cassette, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	c, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	return fromFormat(c), nil
}

// Parse decodes and checks a cassette from data; name is used in errors
// and as the cassette's File.
func Parse(name string, data []byte) (*Cassette, error) {
	// The cassette's messages are slices of its data: a copy keeps the
	// caller's free to change.
	c, err := parse(name, bytes.Clone(data))
	if err != nil {
		return nil, err
	}
	return fromFormat(c), nil
}

// parse is Parse of data the cassette may keep: its lines, checked
// together.
func parse(name string, data []byte) (*format.Cassette, error) {
	c, err := format.Parse(name, data)
	if err != nil {
		return nil, exported(err)
	}
	if _, err := format.AnalyseLines(c, true); err != nil {
		return nil, exported(err)
	}
	return c, nil
}

// readFile reads at most MaxSize bytes of the file at path.
func readFile(path string) ([]byte, error) {
	data, err := format.ReadFile(path)
	return data, exported(err)
}

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
	c, _, err := parse(path, data)
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
	c, _, err := parse(name, bytes.Clone(data))
	if err != nil {
		return nil, err
	}
	return fromFormat(c), nil
}

// parse is Parse of data the cassette may keep: bytes → lines → model,
// then the lines checked together (analysed), once. It returns what the
// analysis learnt of each line, which replay plans from.
func parse(name string, data []byte) (*format.Cassette, []format.LineInfo, error) {
	c, err := format.Parse(name, data)
	if err != nil {
		return nil, nil, exported(err)
	}
	infos, err := format.AnalyseLines(c, true)
	if err != nil {
		return nil, nil, exported(err)
	}
	return c, infos, nil
}

// readFile reads at most MaxSize bytes of the file at path.
func readFile(path string) ([]byte, error) {
	data, err := format.ReadFile(path)
	return data, exported(err)
}

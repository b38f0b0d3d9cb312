package format

import "errors"

// upgrade turns a version-1 cassette into the version-2 cassette it stands
// for: version 1 has no endings, so its session ended with the client's
// close, after its last line; the stderr tail a version-1 stderr line held
// is that ending's.
func (c *Cassette) upgrade() error {
	end := &Ending{End: EndClient}
	ins := c.Interactions[:0]
	for _, in := range c.Interactions {
		if in.Kind == KindStderr {
			if in.From != "" || in.Message != nil || in.HTTP != nil || in.Ending != nil {
				return &FormatError{File: c.File, Line: len(ins) + 2, Err: errors.New("stderr line with a message or HTTP fields")}
			}
			end.Stderr += in.Text
			continue
		}
		ins = append(ins, in)
	}
	c.Interactions = append(ins, Interaction{Kind: KindClose, Ending: end})
	c.Header.Version = Version
	return nil
}

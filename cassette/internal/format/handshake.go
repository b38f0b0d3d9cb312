package format

import "encoding/json"

// HeaderScan finds the protocol revision and server name of a session: from
// the initialize exchange, or, in revisions without one (2026-07-28 and
// later), from the "_meta" every message carries.
type HeaderScan struct {
	initID           string
	Protocol, Server string // the session's protocol revision and server name, once found
	FromInit         bool   // they were read from the answer to initialize
}

// The "_meta" keys that carry the protocol revision and the server's
// identity in revisions without initialize.
const (
	MetaProtocol   = "io.modelcontextprotocol/protocolVersion"
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
)

// Scan reads message m, from side from.
func (h *HeaderScan) Scan(from string, m *MsgInfo) {
	switch m.Kind {
	case MsgCall, MsgNote:
		if from != FromClient {
			return
		}
		if m.Method == "initialize" {
			h.initID = m.ID
		}
		if h.Protocol == "" {
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				json.Unmarshal(p.Meta[MetaProtocol], &h.Protocol)
			}
		}
	case MsgResponse:
		if from != FromServer || m.Error != nil || h.FromInit {
			return
		}
		if h.initID != "" && m.ID == h.initID {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
			}
			json.Unmarshal(m.Result, &r)
			h.Protocol, h.Server, h.FromInit = r.ProtocolVersion, r.ServerInfo.Name, true
			return
		}
		if h.Server == "" {
			var r struct {
				Meta map[string]struct {
					Name string `json:"name"`
				} `json:"_meta"`
			}
			if json.Unmarshal(m.Result, &r) == nil {
				h.Server = r.Meta[MetaServerInfo].Name
			}
		}
	}
}

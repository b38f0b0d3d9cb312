package client

// Version is this module's version: the release the code is, or will be
// tagged as. A client introduces itself with it (DefaultImplementation),
// so a server's logs and a cassette's clientInfo say which release spoke.
//
// It follows the module's tag policy (CHANGELOG.md, "Versions"). On v0, an
// incompatible change to the public API makes it the next minor version.
// Any other change worth a changelog entry makes it the next patch. The
// change that first needs the new version sets it. A release tags the
// commit whose Version it names.
// scripts/apicheck holds it to that against the last release's API.
const Version = "v0.2.0"

// Package yamlout writes YAML as gopkg.in/yaml.v3's encoder writes it, byte
// for byte, for what the kubewire command prints: scalars (cli's `-o yaml`,
// whose layout cli writes itself) and trees read from JSON into yaml.Node
// (rbac.WriteYAML, for the rbac and manifests commands).
//
// # Where this sits
//
// Nowhere on the pipeline: a leaf for the command's printers.
//
// # Why it exists
//
// The command reads YAML with yaml.v3 (kubeconfigs) and used its encoder to
// write it. The encoder (yaml.v3's emitter, its scalar analysis and its
// reflection-driven marshaller) cost the command's binary 0.15e6 bytes, this
// package 0.05e6 of them back: 0.10e6 saved (issue 42). What the command
// writes is narrow — mappings, sequences (block, or flow for rbac's rule
// lists) and scalars, from JSON, with no tags, anchors or comments — so it is
// written here, deciding each scalar's style by yaml.v3's rules: plain where
// the emitter allows it and the plain form reads back as the same string, else
// single-quoted where allowed, else double-quoted with yaml.v3's escapes; a
// string with line breaks as a literal block where allowed.
// Its tests hold the output to yaml.v3's on generated strings (scalar_test.go)
// and trees (node_test.go) and on every JSON document recorded in the
// repository (real_test.go).
//
// # Guarantees
//   - String, and Node on a tree read from JSON, give what yaml.v3 v3.0.1's
//     Marshal and Encoder (indent 2) give.
//   - Node refuses (an error) what the command never writes: aliases, tags
//     other than what JSON reads as, flow mappings, a flow sequence holding a
//     collection, and a mapping key yaml.v3 would write in the "? " form (over
//     128 bytes, or with a line break).
//
// # Compared with kubectl
//
// kubectl writes YAML through sigs.k8s.io/yaml, built on a fork of yaml.v2,
// whose scalar styles are close to yaml.v3's but not the same in every case.
// kubewire's printers have always used yaml.v3's choices; this package keeps
// them.
package yamlout

package main

import "github.com/spf13/cobra"

// addOverlayFlag adds the repeatable --overlay flag of every command that
// loads a spec (generate, lint, mock).
func addOverlayFlag(cmd *cobra.Command, overlays *[]string) {
	cmd.Flags().StringArrayVar(overlays, "overlay", nil,
		"OpenAPI Overlay 1.0 file to apply to the spec before anything else (repeatable, applied in order)")
	_ = cmd.MarkFlagFilename("overlay", "yaml", "yml", "json")
}

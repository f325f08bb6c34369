package report

import "io"

// Markdown is the job summary as a document of its own, for a pull
// request comment or reading locally: the same gate matrix, timelines and
// findings, in at most 64 KiB. With Options.StopCommands (stdout under
// GitHub Actions) it is written inside one stop-commands region, as the
// text format is.
func Markdown(w io.Writer, in *Input, opts Options) error {
	md := summary(in, opts, pictureLimit)
	if opts.StopCommands {
		token := opts.StopToken
		if token == "" {
			token = NewStopToken()
		}
		md = "::stop-commands::" + token + "\n" + md + "::" + token + "::\n"
	}
	_, err := io.WriteString(w, md)
	return err
}

# ptyhost shell integration for fish: marks each prompt and command for
# the terminal (OSC 133 A/B/C/D, with the command line as VS Code's OSC
# 633;E), so viewers can list commands, jump between them and see their
# exit status. Load it from ~/.config/fish/config.fish:
#   ptyhost shell-integration fish | source
if status is-interactive; and not set -q __ptyhost_marks
    set -g __ptyhost_marks 1

    # __ptyhost_escape prints its argument with backslash, ';' and control
    # characters escaped as OSC 633 wants.
    function __ptyhost_escape
        string replace -a -- '\\' '\\\\' $argv[1] \
            | string replace -a -- ';' '\\x3b' \
            | string replace -a -- \e '\\x1b' \
            | string replace -a -- \a '\\x07' \
            | string replace -a -- \t '\\x09' \
            | string replace -a -- \r '\\x0d' \
            | string join -- '\\x0a'
    end

    function __ptyhost_prompt --on-event fish_prompt
        printf '\e]133;A\a'
    end

    function __ptyhost_preexec --on-event fish_preexec
        printf '\e]633;E;%s\a\e]133;C\a' (__ptyhost_escape "$argv[1]")
    end

    function __ptyhost_postexec --on-event fish_postexec
        printf '\e]133;D;%s\a' $status
    end
end

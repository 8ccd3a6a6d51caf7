# ptyhost shell integration for bash: marks each prompt and command for
# the terminal (OSC 133 A/B/C/D, with the command line as VS Code's OSC
# 633;E), so viewers can list commands, jump between them and see their
# exit status. Load it from ~/.bashrc:
#   eval "$(ptyhost shell-integration bash)"
if [[ $- == *i* && -z ${__ptyhost_marks-} ]]; then
__ptyhost_marks=1
# 1 while the prompt waits for a command, 0 once one has started.
__ptyhost_at_prompt=0

# __ptyhost_escape prints $1 with backslash, ';' and control bytes escaped
# as OSC 633 wants, so the line cannot end the sequence early.
__ptyhost_escape() {
	local s=$1 out= c i LC_ALL=C
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		\\) out+='\\' ;;
		\;) out+='\x3b' ;;
		[[:cntrl:]]) printf -v c '\\x%02x' "'$c"; out+=$c ;;
		*) out+=$c ;;
		esac
	done
	printf '%s' "$out"
}

# __ptyhost_precmd runs first in PROMPT_COMMAND, while $? is still the
# command's status; __ptyhost_ready runs last, so that the DEBUG trap takes
# no other PROMPT_COMMAND entry for the user's command.
__ptyhost_precmd() {
	local status=$?
	__ptyhost_at_prompt=0
	if [[ -n ${__ptyhost_ran-} ]]; then
		printf '\e]133;D;%s\a' "$status"
	fi
	__ptyhost_ran=
	printf '\e]133;A\a'
	[[ $PS1 == *'133;B'* ]] || PS1+='\[\e]133;B\a\]'
	return $status
}

__ptyhost_ready() {
	__ptyhost_at_prompt=1
}

# The DEBUG trap runs before every simple command: the first one after a
# prompt is the start of the command line the user entered.
__ptyhost_preexec() {
	((__ptyhost_at_prompt == 1)) || return 0
	__ptyhost_at_prompt=0
	__ptyhost_ran=1
	local line
	line=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)
	if [[ $line =~ ^[[:space:]]*[0-9]+[*[:space:]]+(.*)$ ]]; then
		line=${BASH_REMATCH[1]}
	else
		line=$BASH_COMMAND
	fi
	printf '\e]633;E;%s\a\e]133;C\a' "$(__ptyhost_escape "$line")"
}

if [[ $(declare -p PROMPT_COMMAND 2>/dev/null) == "declare -a"* ]]; then
	PROMPT_COMMAND=(__ptyhost_precmd "${PROMPT_COMMAND[@]}" __ptyhost_ready)
else
	PROMPT_COMMAND="__ptyhost_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND};__ptyhost_ready"
fi
trap '__ptyhost_preexec' DEBUG
fi

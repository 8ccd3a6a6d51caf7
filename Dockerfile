# The relay as a container image: docs/deploy.md says how to run it.
#
#   docker build -t ptyhost .
#   docker run -d -p 443:8443 -p 80:8080 -v ptyhost:/var/lib/ptyhost ptyhost \
#     relay --listen :8443 --acme-domain relay.example.com --acme-http :8080 \
#     --acme-cache /var/lib/ptyhost/acme --public-key /var/lib/ptyhost/relay.pub
#
# The build stage needs Go alone: the browser viewer's bundle the relay
# embeds is committed (web/dist). The final stage holds the static binary
# and nothing else but CA certificates and a non-root user.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The same command CI builds and checks to be statically linked (.ci/run,
# TestDockerfileBuildsWhatCIChecks).
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ptyhost ./cmd/ptyhost
# The state volume's directory, owned by the user the relay runs as, so
# that a fresh named volume starts out writable by it.
RUN mkdir -p /out/state/acme && chmod -R 0700 /out/state

# distroless/static: CA certificates (for the ACME CA), /etc/passwd with
# the nonroot user (65532), no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ptyhost /usr/local/bin/ptyhost
COPY --from=build --chown=65532:65532 /out/state /var/lib/ptyhost
USER nonroot:nonroot
# The ACME account key, certificates and keys, and the relay's keys, live
# here; the default --acme-cache is under XDG_CACHE_HOME.
ENV XDG_CACHE_HOME=/var/lib/ptyhost
VOLUME /var/lib/ptyhost
# Unprivileged ports inside the container: map 443 and 80 to them.
EXPOSE 8443 8080
ENTRYPOINT ["/usr/local/bin/ptyhost"]
CMD ["relay", "--help"]

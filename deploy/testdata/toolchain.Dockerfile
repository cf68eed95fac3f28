# A local stand-in for the golang base image, for building deploy/Dockerfile
# from source where no image can be pulled (TestDockerfileFromSource): the
# host's Go toolchain, busybox for sh/mkdir/cp, the CA bundle and a module
# download cache, so the build stage runs offline (GOPROXY=off).
FROM scratch
COPY rootfs/ /
RUN ["/bin/busybox", "--install", "-s", "/bin"]
ENV PATH=/usr/local/go/bin:/bin HOME=/root GOPATH=/go GOMODCACHE=/go/pkg/mod GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local
RUN mkdir -p /root /tmp && chmod 1777 /tmp

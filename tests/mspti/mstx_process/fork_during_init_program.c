/* fork() while another thread is inside the mstx header's one-time initialisation (the tool's
 * InitInjectionMstx, here one that blocks until released): that thread does not exist in the
 * child, so the child must initialise for itself rather than wait for it forever. The child's
 * marks must reach the tool. MSTX_INJECTION_PATH names slow_injection. Exit 0 on success. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mstx/ms_tools_ext.h"

static void *first_mark(void *arg) {
    (void)arg;
    mstxMarkA("parent", NULL); /* runs the initialisation, which blocks in the tool */
    return NULL;
}

static int tool_marks(void) {
    void *tool = dlopen(getenv("MSTX_INJECTION_PATH"), RTLD_LAZY | RTLD_NOLOAD);
    int *marks = tool != NULL ? (int *)dlsym(tool, "slow_injection_marks") : NULL;
    return marks != NULL ? *marks : -1;
}

int main(void) {
    int entered[2], release[2], status = 0;
    char text[16], byte = 0;
    pthread_t thread;
    pid_t child;
    if (getenv("MSTX_INJECTION_PATH") == NULL) {
        fprintf(stderr, "set MSTX_INJECTION_PATH to the slow_injection library\n");
        return 2;
    }
    if (pipe(entered) != 0 || pipe(release) != 0) return 2;
    snprintf(text, sizeof(text), "%d", entered[1]);
    setenv("SLOW_INIT_ENTERED_FD", text, 1);
    snprintf(text, sizeof(text), "%d", release[0]);
    setenv("SLOW_INIT_RELEASE_FD", text, 1);
    if (pthread_create(&thread, NULL, first_mark, NULL) != 0) return 2;
    if (read(entered[0], &byte, 1) != 1) return 2; /* the thread is inside the initialisation */

    child = fork();
    if (child < 0) return 2;
    if (child == 0) {
        alarm(5); /* a child that waits for the parent's initialiser never returns from the mark */
        mstxMarkA("child", NULL);
        mstxMarkA("child", NULL);
        _exit(tool_marks() == 2 ? 0 : 3);
    }
    while (waitpid(child, &status, 0) < 0) {}
    if (write(release[1], &byte, 1) != 1) return 2;
    pthread_join(thread, NULL);
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "child %s\n", WTERMSIG(status) == SIGALRM ? "hung in the mstx initialisation" : "died");
        return 1;
    }
    if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child's marks did not reach the tool (status %d)\n", WEXITSTATUS(status));
        return 1;
    }
    if (tool_marks() != 1) {
        fprintf(stderr, "parent's mark did not reach the tool (%d)\n", tool_marks());
        return 1;
    }
    printf("fork_during_init_program: the child initialised mstx itself\n");
    return 0;
}

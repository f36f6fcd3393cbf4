// Bounded waits and a message inbox, for every Node interop script.

/** How long any single wait may take, in ms. */
export const WAIT = 10000;

/** Resolves with what `start(resolve, reject)` produces, or rejects after `ms` with `what` in the message. */
export function within(what, start, ms = WAIT) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms);
        try {
            start(value => {
                clearTimeout(timer);
                resolve(value);
            }, error => {
                clearTimeout(timer);
                reject(error);
            });
        } catch (x) {
            clearTimeout(timer);
            reject(x);
        }
    });
}

/** Messages arriving in order; `next(what)` waits (bounded) for the next one matching. */
export class Inbox {
    #messages = [];
    #waiters = [];

    push(message) {
        const index = this.#waiters.findIndex(w => w.match(message));
        if (index >= 0) {
            const [waiter] = this.#waiters.splice(index, 1);
            waiter.resolve(message);
        } else {
            this.#messages.push(message);
        }
    }

    next(what, match = () => true, ms = WAIT) {
        const index = this.#messages.findIndex(match);
        if (index >= 0) {
            return Promise.resolve(this.#messages.splice(index, 1)[0]);
        }
        let waiter;
        return within(what, resolve => {
            waiter = {match, resolve};
            this.#waiters.push(waiter);
        }, ms).finally(() => {
            const i = this.#waiters.indexOf(waiter);
            if (i >= 0) {
                this.#waiters.splice(i, 1);
            }
        });
    }

    /** The messages received and not taken yet. */
    get pending() {
        return [...this.#messages];
    }
}

/** Waits `ms` (for "nothing else arrives" checks only, never for correctness). */
export function pause(ms) {
    return new Promise(resolve => setTimeout(resolve, ms));
}

// Hand-written (not generated). The bundled fetch client names the DOM type `BodyInit`, which
// Node's type definitions (@types/node) do not declare globally; this declares it as the body
// type of Node's own RequestInit so the generated code type-checks without the DOM library.
// Only the type-check of the sources needs it: the generated declarations never mention it.
type BodyInit = NonNullable<RequestInit['body']>;
